"""Camera sources: the protocol vision suites use, a live/recorded OpenCV capture, and a folder of images.

Suites see only :class:`Camera`. :class:`OpenCvCamera` reads a device index (``0``), a device path
(``/dev/video0``), a video file or an RTSP/HTTP stream through ``cv2.VideoCapture``;
:class:`FolderCamera` replays a folder of still images, keeping each file's own bytes so a
frame's SHA-256 is the file's SHA-256. :func:`open_camera` turns a profile's camera string into
a source; the simulated camera plugs in through :func:`register_camera_scheme` (``sim:...``).

A frame that cannot be had is never invented: a failed grab is retried within bounds
(reconnecting to a device or stream), then :class:`CameraError` is raised naming the source and
every attempt's reason. A previous frame is never returned again as a new one. The end of a file
or folder raises :class:`EndOfStream` (a :class:`CameraError`); :meth:`Camera.frames` stops there.

:func:`keep_frame` stores a frame used for a verdict as evidence, under a name carrying its hash.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import cv2
import numpy as np

from vision.frame import Frame


class CameraError(RuntimeError):
    """A camera source could not deliver a frame; names the source and every attempt's reason."""

    def __init__(self, source: str, what: str, attempts: list[str] | None = None) -> None:
        self.source = source
        self.what = what
        self.attempts = list(attempts or [])
        detail = "; ".join(f"attempt {i + 1}: {a}" for i, a in enumerate(self.attempts))
        super().__init__(f"camera {source}: {what}" + (f" ({detail})" if detail else ""))


class EndOfStream(CameraError):
    """A finite source (video file, image folder) has no more frames."""


@dataclass(frozen=True)
class CameraIdentity:
    """What a camera source is: kind (``opencv-device``, ``opencv-file``, ``opencv-stream``, ``folder``, ``sim``),
    its source (credentials removed), resolution (width, height) and frame rate when known."""

    kind: str
    source: str
    resolution: tuple[int, int] | None
    fps: float | None = None


class Camera(ABC):
    """What a suite can ask of a camera: its identity and its frames, one at a time."""

    @property
    @abstractmethod
    def identity(self) -> CameraIdentity:
        """The source's identity (kind, source, resolution, fps)."""

    @abstractmethod
    def read(self) -> Frame:
        """The next frame; raises :class:`CameraError` (or :class:`EndOfStream`) naming the source."""

    @abstractmethod
    def close(self) -> None:
        """Release the source; idempotent."""

    def cue(self, event: str) -> None:
        """Tell the camera what the bench expects to happen now (``"launch"``: a game has just started).

        A real camera films whatever happens and ignores it; a simulated camera stages the event
        (the ball launched and running) for the frames that follow.
        """

    def frames(self, limit: int | None = None) -> Iterator[Frame]:
        """Yield frames until ``limit`` frames or the end of a finite source; other faults raise."""
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        count = 0
        while limit is None or count < limit:
            try:
                frame = self.read()
            except EndOfStream:
                return
            count += 1
            yield frame

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def redact(source: str) -> str:
    """``source`` with any URL password replaced by ``***`` (for logs, errors and evidence)."""
    return re.sub(r"^([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@]*):[^@/]*@", r"\1:***@", source)


def _classify(source: int | str) -> str:
    if isinstance(source, int) or str(source).isdigit() or str(source).startswith("/dev/"):
        return "opencv-device"
    if "://" in str(source):
        return "opencv-stream"
    return "opencv-file"


class OpenCvCamera(Camera):
    """A ``cv2.VideoCapture`` source: device index or path, video file, or RTSP/HTTP(S) URL.

    Each grab must finish within ``timeout_s`` (enforced by a watchdog thread, and passed to the
    backends that honour ``CAP_PROP_OPEN_TIMEOUT_MSEC`` / ``CAP_PROP_READ_TIMEOUT_MSEC``). A failed or
    late grab from a device or stream is retried up to ``retries`` times, reopening the capture
    each time; a video file's failed grab is its end (:class:`EndOfStream`). The frame timestamp is
    the bench clock (``time.time()``) when the grab returned. ``width``/``height`` request a capture
    size; a source that delivers another size is refused, never rescaled silently.
    """

    def __init__(self, source: int | str, *, width: int | None = None, height: int | None = None,
                 timeout_s: float = 5.0, retries: int = 3) -> None:
        if isinstance(source, str) and source.isdigit():
            source = int(source)
        if isinstance(source, int) and source < 0:
            raise ValueError(f"camera device index must be >= 0, got {source}")
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        if retries < 1:
            raise ValueError(f"retries must be >= 1, got {retries}")
        if (width is None) != (height is None) or (width is not None and height is not None
                                                     and (width < 1 or height < 1)):
            raise ValueError(f"width and height must both be given and positive, got {width} x {height}")
        self.source = source
        self.name = redact(str(source))
        self.kind = _classify(source)
        self.width, self.height = width, height
        self.timeout_s = float(timeout_s)
        self.retries = int(retries)
        if self.kind == "opencv-file" and not Path(str(source)).is_file():
            raise CameraError(self.name, "video file does not exist")
        self._executor: ThreadPoolExecutor | None = None
        self._capture: Any = None
        self._index = 0
        self._identity: CameraIdentity | None = None
        self._lock = threading.Lock()
        self._closed = False
        attempts: list[str] = []
        for attempt in range(self.retries):
            try:
                self._open()
                break
            except CameraError as error:
                attempts.append(error.what)
                if attempt + 1 < self.retries:
                    time.sleep(min(0.2 * 2**attempt, self.timeout_s))
        else:
            raise CameraError(self.name, f"could not be opened after {self.retries} attempts", attempts)

    # -- opening and grabbing -------------------------------------------------------------------

    def _run(self, call: Callable[[], Any], what: str) -> Any:
        """Run a blocking capture call with the watchdog; on timeout abandon the worker (it releases its capture)."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="camera-grab")
        future = self._executor.submit(call)
        try:
            return future.result(timeout=self.timeout_s)
        except FutureTimeout:
            stuck, self._executor = self._executor, None
            capture, self._capture = self._capture, None
            if capture is not None:
                future.add_done_callback(lambda _f: capture.release())
            stuck.shutdown(wait=False)
            raise CameraError(self.name, f"{what} took longer than {self.timeout_s:g} s") from None

    def _open(self) -> None:
        ms = int(self.timeout_s * 1000)
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
        source = self.source

        def make() -> Any:
            if self.kind == "opencv-device":
                return cv2.VideoCapture(source)
            return cv2.VideoCapture(source, cv2.CAP_ANY, params)

        capture = self._run(make, "opening")
        if not capture.isOpened():
            capture.release()
            raise CameraError(self.name, "no backend could open the source")
        if self.width is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        if self.width is not None and size != (self.width, self.height):
            capture.release()
            raise CameraError(self.name, f"delivers {size[0]}x{size[1]}, not the requested {self.width}x{self.height}")
        fps = float(capture.get(cv2.CAP_PROP_FPS))
        self._identity = CameraIdentity(self.kind, self.name, size if min(size) > 0 else None,
                                        fps if np.isfinite(fps) and fps > 0 else None)
        self._capture = capture

    def _grab(self) -> np.ndarray:
        capture = self._capture
        if capture is None:
            raise CameraError(self.name, "capture is not open")
        ok, image = self._run(capture.read, "grab")
        if not ok or image is None or image.size == 0:
            raise CameraError(self.name, "grab returned no image")
        return image

    # -- Camera ----------------------------------------------------------------------------------

    @property
    def identity(self) -> CameraIdentity:
        if self._identity is None:
            raise CameraError(self.name, "not open")
        return self._identity

    def read(self) -> Frame:
        with self._lock:
            if self._closed:
                raise CameraError(self.name, "camera is closed")
            attempts: list[str] = []
            for attempt in range(self.retries):
                try:
                    if self._capture is None:
                        self._open()
                    image = self._grab()
                    timestamp = time.time()
                    break
                except CameraError as error:
                    attempts.append(error.what)
                    if self.kind == "opencv-file":
                        raise EndOfStream(self.name, f"end of video after {self._index} frames "
                                                     "(or an undecodable frame)") from None
                    if self._capture is not None:  # a disconnect: reopen before the next attempt
                        self._capture.release()
                        self._capture = None
                    if attempt + 1 < self.retries:
                        time.sleep(min(0.1 * 2**attempt, self.timeout_s))
            else:
                raise CameraError(self.name, f"no frame after {self.retries} attempts", attempts)
            if image.dtype != np.uint8:
                raise CameraError(self.name, f"delivered {image.dtype} pixels, expected uint8")
            frame = Frame(image=image, timestamp=timestamp, index=self._index, source=self.name)
            self._index += 1
            return frame

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._capture is not None:
                self._capture.release()
                self._capture = None
            if self._executor is not None:
                self._executor.shutdown(wait=False)
                self._executor = None


def _natural_key(name: str) -> list[object]:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


class FolderCamera(Camera):
    """Frames from a folder of still images, in a fixed order, each carrying its file's bytes.

    ``pattern`` is one or more shell patterns separated by ``|`` (matched case-insensitively on the
    file name). ``sort="name"`` orders by name with digit runs compared as numbers
    (``f2.png`` before ``f10.png``); ``sort="mtime"`` by modification time, then name. The file
    list is taken once, when the camera is made. ``Frame.encoded`` is the file's bytes (so
    ``Frame.sha256`` is the file's SHA-256), ``Frame.timestamp`` its modification time, and
    ``Frame.index`` its position in the order. A file that cannot be decoded raises
    :class:`CameraError` naming the file.
    """

    def __init__(self, path: str | os.PathLike[str], pattern: str = "*.png|*.jpg|*.jpeg", sort: str = "name") -> None:
        folder = Path(path)
        if not folder.is_dir():
            raise CameraError(str(folder), "is not a folder")
        if sort not in ("name", "mtime"):
            raise ValueError(f"sort must be 'name' or 'mtime', got {sort!r}")
        patterns = [p.strip().lower() for p in pattern.split("|") if p.strip()]
        if not patterns:
            raise ValueError(f"pattern {pattern!r} has no shell pattern")
        files = [f for f in folder.iterdir()
                 if f.is_file() and any(fnmatch.fnmatchcase(f.name.lower(), p) for p in patterns)]
        if sort == "name":
            files.sort(key=lambda f: _natural_key(f.name))
        else:
            files.sort(key=lambda f: (f.stat().st_mtime, _natural_key(f.name)))
        if not files:
            raise CameraError(str(folder), f"holds no image matching {pattern!r}")
        self.path = folder
        self.files: tuple[Path, ...] = tuple(files)
        self._next = 0
        self._closed = False
        self._identity: CameraIdentity | None = None

    @property
    def identity(self) -> CameraIdentity:
        if self._identity is None:
            first = self._decode(self.files[0], self.files[0].read_bytes())
            self._identity = CameraIdentity("folder", str(self.path), (first.shape[1], first.shape[0]), None)
        return self._identity

    def _decode(self, file: Path, data: bytes) -> np.ndarray:
        image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR) if data else None
        if image is None:
            raise CameraError(str(self.path), f"image file {file.name} cannot be decoded")
        return image

    def read(self) -> Frame:
        if self._closed:
            raise CameraError(str(self.path), "camera is closed")
        if self._next >= len(self.files):
            raise EndOfStream(str(self.path), f"no more images after {len(self.files)}")
        file = self.files[self._next]
        try:
            data = file.read_bytes()
            mtime = file.stat().st_mtime
        except OSError as error:
            raise CameraError(str(self.path), f"image file {file.name} cannot be read: {error}") from error
        image = self._decode(file, data)
        frame = Frame(image=image, timestamp=mtime, index=self._next, source=str(file), encoded=data,
                      encoded_suffix=file.suffix.lower())
        self._next += 1
        return frame

    def close(self) -> None:
        self._closed = True


CameraFactory = Callable[..., Camera]
_SCHEMES: dict[str, CameraFactory] = {}
_URL_SCHEMES = ("rtsp", "rtsps", "rtmp", "http", "https", "udp", "tcp")


def register_camera_scheme(scheme: str, factory: CameraFactory) -> None:
    """Make ``open_camera("<scheme>:<rest>", **options)`` call ``factory(rest, **options)`` (e.g. ``sim``)."""
    if not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme) or scheme in _URL_SCHEMES:
        raise ValueError(f"camera scheme must be a lower-case name that is not a URL scheme, got {scheme!r}")
    _SCHEMES[scheme] = factory


def open_camera(spec: str, **options: Any) -> Camera:
    """Open the camera a profile names.

    ``"0"`` or ``"/dev/video0"``: a device (OpenCV); an existing folder: :class:`FolderCamera`;
    an existing video file or an ``rtsp://`` / ``http(s)://`` URL: OpenCV; ``"<scheme>:..."`` for a
    registered scheme (``sim:`` for the simulated camera). ``options`` go to the source's constructor.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"camera spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):(?!//)(.*)$", spec, flags=re.DOTALL)
    if match and match.group(1).lower() in _SCHEMES:
        return _SCHEMES[match.group(1).lower()](match.group(2), **options)
    if spec.isdigit() or spec.startswith("/dev/"):
        return OpenCvCamera(spec, **options)
    url = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://", spec)
    if url:
        if url.group(1).lower() in _URL_SCHEMES:
            return OpenCvCamera(spec, **options)
        raise ValueError(f"camera spec {redact(spec)!r}: URL scheme {url.group(1)!r} is not supported "
                         f"(use one of {', '.join(_URL_SCHEMES)})")
    path = Path(spec)
    if path.is_dir():
        return FolderCamera(path, **options)
    if path.is_file():
        return OpenCvCamera(spec, **options)
    if match:
        raise ValueError(f"camera spec {spec!r}: scheme {match.group(1)!r} is not registered "
                         f"(registered: {', '.join(sorted(_SCHEMES)) or 'none'})")
    raise ValueError(f"camera spec {spec!r} is not a device index, a /dev path, an existing folder or video "
                     f"file, a stream URL or a registered scheme")


def keep_frame(frame: Frame, directory: str | os.PathLike[str]) -> Path:
    """Store ``frame.evidence_bytes()`` as ``<directory>/<index>-<sha256[:16]><suffix>`` and return the path.

    Idempotent: a file already there with the same bytes is left alone. A file there with other
    bytes is an evidence-integrity fault and raises ValueError. Writes are atomic (temp file + rename).
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    data = frame.evidence_bytes()
    path = folder / f"{frame.index}-{frame.sha256[:16]}{frame.evidence_suffix}"
    if path.exists():
        if hashlib.sha256(path.read_bytes()).hexdigest() != frame.sha256:
            raise ValueError(f"evidence file {path} exists with different content than frame {frame.index}")
        return path
    handle, temp = tempfile.mkstemp(dir=folder, prefix=".keep-", suffix=frame.evidence_suffix)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path
