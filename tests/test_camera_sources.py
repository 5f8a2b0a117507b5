"""Camera sources: folder replay, OpenCV capture of a video file, retries, reconnects, factory and evidence."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from drivers import camera
from drivers.camera import (
    CameraError,
    EndOfStream,
    FolderCamera,
    OpenCvCamera,
    keep_frame,
    open_camera,
    redact,
    register_camera_scheme,
)


def _image(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    image = np.full((size[1], size[0], 3), value, np.uint8)
    cv2.putText(image, str(value), (5, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255 - value,) * 3, 2)
    return image


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """f1.png, f2.jpg, f10.png, F3.JPEG, with mtimes 1000+i, plus a text file that must be ignored."""
    names = ["f1.png", "f2.jpg", "F3.JPEG", "f10.png"]
    for i, name in enumerate(names):
        ok, data = cv2.imencode(Path(name).suffix.lower(), _image(40 * (i + 1)))
        assert ok
        (tmp_path / name).write_bytes(data.tobytes())
        os.utime(tmp_path / name, (1000.0 + i, 1000.0 + i))
    (tmp_path / "notes.txt").write_text("not an image")
    return tmp_path


def test_folder_camera_order_hash_timestamp(folder: Path) -> None:
    with FolderCamera(folder) as cam:
        assert cam.identity.kind == "folder"
        assert cam.identity.resolution == (64, 48)
        frames = list(cam.frames())
    assert [Path(f.source).name for f in frames] == ["f1.png", "f2.jpg", "F3.JPEG", "f10.png"]  # digits as numbers
    assert [f.index for f in frames] == [0, 1, 2, 3]
    for i, frame in enumerate(frames):
        data = Path(frame.source).read_bytes()
        assert frame.sha256 == hashlib.sha256(data).hexdigest()
        assert frame.evidence_bytes() == data
        assert frame.timestamp == pytest.approx(1000.0 + i)
        assert abs(float(frame.image.mean()) - 40 * (i + 1)) < 15
    assert frames[1].evidence_suffix == ".jpg"


def test_folder_camera_sort_by_mtime_and_pattern(folder: Path) -> None:
    os.utime(folder / "f10.png", (10.0, 10.0))
    names = [Path(f.source).name for f in FolderCamera(folder, sort="mtime").frames()]
    assert names[0] == "f10.png"
    assert [Path(f.source).name for f in FolderCamera(folder, pattern="*.png").frames()] == ["f1.png", "f10.png"]


def test_folder_camera_end_and_bad_file(folder: Path) -> None:
    cam = FolderCamera(folder)
    assert len(list(cam.frames(limit=2))) == 2
    list(cam.frames())
    with pytest.raises(EndOfStream, match="no more images"):
        cam.read()
    (folder / "f5.png").write_bytes(b"\x89PNG truncated")
    cam = FolderCamera(folder)
    cam.read(), cam.read(), cam.read()  # f1, f2, F3
    with pytest.raises(CameraError, match="f5.png cannot be decoded"):
        cam.read()
    with pytest.raises(CameraError, match="no image matching"):
        FolderCamera(folder, pattern="*.bmp")
    with pytest.raises(CameraError, match="not a folder"):
        FolderCamera(folder / "missing")


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    if not writer.isOpened():
        pytest.skip("OpenCV build cannot write MJPG in AVI")
    for i in range(5):
        writer.write(_image(30 + 40 * i))
    writer.release()
    return path


def test_opencv_camera_reads_video_in_order_then_ends(video: Path) -> None:
    before = time.time()
    with OpenCvCamera(str(video), timeout_s=2.0) as cam:
        assert cam.identity.kind == "opencv-file"
        assert cam.identity.resolution == (64, 48)
        assert cam.identity.fps == pytest.approx(10.0)
        frames = list(cam.frames())
        with pytest.raises(EndOfStream, match="end of video after 5 frames"):
            cam.read()
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    means = [float(f.image.mean()) for f in frames]
    assert np.all(np.diff(means) > 20), means  # each frame is the next one written, none repeated
    assert all(before <= f.timestamp <= time.time() for f in frames)
    assert frames[0].encoded is None and frames[0].evidence_suffix == ".png"


def test_opencv_camera_refuses_other_resolution_and_missing_file(video: Path, tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="not the requested 32x24"):
        OpenCvCamera(str(video), width=32, height=24, retries=1, timeout_s=1.0)
    with pytest.raises(CameraError, match="does not exist"):
        OpenCvCamera(str(tmp_path / "none.avi"))


def test_nonexistent_device_fails_after_bounded_retries() -> None:
    start = time.monotonic()
    with pytest.raises(CameraError) as info:
        OpenCvCamera("/dev/video-none-97", timeout_s=0.5, retries=2)
    assert "/dev/video-none-97" in str(info.value)
    assert len(info.value.attempts) == 2
    assert time.monotonic() - start < 5.0


class _FakeCapture:
    """Stands in for cv2.VideoCapture on a stream: scripted reads; counts opens."""

    script: ClassVar[list[str]] = []
    opens: ClassVar[int] = 0

    def __init__(self, *args: object) -> None:
        type(self).opens += 1
        self.value = 10 * type(self).opens

    def isOpened(self) -> bool:  # OpenCV's method name
        return True

    def set(self, *args: object) -> bool:
        return True

    def get(self, prop: int) -> float:
        return {cv2.CAP_PROP_FRAME_WIDTH: 64.0, cv2.CAP_PROP_FRAME_HEIGHT: 48.0}.get(prop, 0.0)

    def read(self) -> tuple[bool, np.ndarray | None]:
        step = type(self).script.pop(0) if type(self).script else "ok"
        if step == "fail":
            return False, None
        if step == "hang":
            time.sleep(0.6)
        self.value += 1
        return True, np.full((48, 64, 3), self.value, np.uint8)

    def release(self) -> None:
        pass


def test_stream_reconnects_after_disconnect_and_never_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_FakeCapture, "opens", 0)
    monkeypatch.setattr(_FakeCapture, "script", ["ok", "fail", "ok", "fail", "fail", "fail"])
    monkeypatch.setattr(camera.cv2, "VideoCapture", _FakeCapture)
    cam = OpenCvCamera("rtsp://user:secret@10.0.0.5/live", timeout_s=0.3, retries=3)
    assert cam.identity.source == "rtsp://user:***@10.0.0.5/live"
    first = cam.read()                      # first capture: value 11
    second = cam.read()                     # fails, reconnects (second capture), value 21
    assert _FakeCapture.opens == 2
    assert int(first.image[0, 0, 0]) == 11 and int(second.image[0, 0, 0]) == 21
    assert second.index == 1
    with pytest.raises(CameraError, match="no frame after 3 attempts") as info:
        cam.read()                          # three failed grabs in a row: reported, not papered over
    assert "secret" not in str(info.value)
    cam.close()


def test_stream_grab_timeout_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_FakeCapture, "opens", 0)
    monkeypatch.setattr(_FakeCapture, "script", ["hang", "ok"])
    monkeypatch.setattr(camera.cv2, "VideoCapture", _FakeCapture)
    cam = OpenCvCamera("http://camera.local/mjpg", timeout_s=0.2, retries=2)
    start = time.monotonic()
    frame = cam.read()                      # first grab hangs past the deadline; a new capture answers
    assert time.monotonic() - start < 0.6
    assert _FakeCapture.opens == 2 and int(frame.image[0, 0, 0]) == 21
    cam.close()


def test_open_camera_dispatch(folder: Path, video: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(open_camera(str(folder)), FolderCamera)
    cam = open_camera(str(video), timeout_s=1.0)
    assert isinstance(cam, OpenCvCamera) and cam.identity.kind == "opencv-file"
    cam.close()
    with pytest.raises(CameraError, match="97"):
        open_camera("97", timeout_s=0.3, retries=1)
    monkeypatch.setattr(camera, "_SCHEMES", {})
    with pytest.raises(ValueError, match="scheme 'sim' is not registered"):
        open_camera("sim:dice?seed=1")
    seen: list[tuple[str, dict[str, object]]] = []

    def factory(rest: str, **options: object) -> FolderCamera:
        seen.append((rest, options))
        return FolderCamera(folder)

    register_camera_scheme("sim", factory)
    assert isinstance(open_camera("sim:dice?seed=1", speed=2), FolderCamera)
    assert seen == [("dice?seed=1", {"speed": 2})]
    with pytest.raises(ValueError, match="not supported"):
        open_camera("ftp://host/x")
    with pytest.raises(ValueError, match="not a device index"):
        open_camera("no-such-thing")
    with pytest.raises(ValueError):
        register_camera_scheme("rtsp", factory)


def test_keep_frame_is_idempotent_and_named_by_hash(folder: Path, video: Path, tmp_path: Path) -> None:
    frame = FolderCamera(folder).read()
    evidence = tmp_path / "evidence"
    path = keep_frame(frame, evidence)
    assert path.name == f"0-{frame.sha256[:16]}.png"
    assert path.read_bytes() == (folder / "f1.png").read_bytes()
    assert keep_frame(frame, evidence) == path
    assert len(list(evidence.iterdir())) == 1
    path.write_bytes(b"tampered")
    with pytest.raises(ValueError, match="different content"):
        keep_frame(frame, evidence)
    with OpenCvCamera(str(video), timeout_s=1.0) as cam:
        live = cam.read()
    kept = keep_frame(live, evidence)
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == live.sha256
    assert np.array_equal(cv2.imread(str(kept)), live.image)  # PNG is lossless


def test_redact_and_close_from_another_thread(video: Path) -> None:
    assert redact("rtsp://admin:pa55@cam/1") == "rtsp://admin:***@cam/1"
    assert redact("/dev/video0") == "/dev/video0"
    cam = OpenCvCamera(str(video), timeout_s=1.0)
    worker = threading.Thread(target=cam.close)
    worker.start()
    worker.join()
    with pytest.raises(CameraError, match="closed"):
        cam.read()
