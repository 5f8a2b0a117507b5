"""The learned per-die reader at run time: an ONNX classifier run by OpenCV's DNN module, no training framework.

The model reads a die's upright crop (:func:`vision.die_crop.rectified_crop`) and gives the
probabilities of seven classes: faces 1..6 and "not a flat readable die". Its card, a JSON file beside
the ``.onnx``, states the classes, the crop's size and margin, what the model reads besides the crop, the
calibrated acceptance threshold (:mod:`vision.die_reader_calibration`) and the model file's SHA-256;
:meth:`DieReaderModel.load` refuses a model file whose hash is not the card's, so every read can name the exact reader that made it
(a certificate names the model by that hash). Below the threshold the reader declines, with its
reason and its confidence, instead of guessing.

A model whose card lists the input ``flat_side_share`` also reads the camera: the widest side face a flat
die shows to it, as a share of the edge (0.12 for a camera over the table, about 0.45 for an oblique
webcam), as a fourth plane of the crop. A die that shows a wider side face than a flat die can is not flat
on a face (cocked, p217-2007/banca-francesa/7 b): to a camera over the table it is "not a flat readable
die", while to an oblique camera the same crop is a flat die. The crop alone cannot tell the two apart.
Such a model's card may state a threshold fitted for each camera it was validated on
(``camera_thresholds``); :meth:`ReaderCard.threshold_for` gives a camera its own, and any other camera the
strictest the card states.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.declines import Decline
from vision.die_crop import DieSquare, rectified_crop

MODEL_DIR = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = MODEL_DIR / "die_reader.onnx"
FACES = 6
"""Classes 0..5 of the reader's probabilities are the faces 1..6..."""
NOT_A_DIE = FACES
"""...and class 6 is "not a flat readable die"."""
NOT_A_DIE_NAME = "not-a-die"
CROP_INPUT = "bgr"
SIDE_INPUT = "flat_side_share"
"""The inputs a card may list: the crop's colour planes, and the camera's flat side share as a fourth plane."""


class ModelIntegrityError(ValueError):
    """A model file that is missing, unreadable or not the one its card describes (the message names the file)."""


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def card_path(model_path: Path) -> Path:
    """The card (JSON) beside a model file."""
    return model_path.with_suffix(".json")


@dataclass(frozen=True)
class ReaderCard:
    """What the card beside a model states: classes, crop geometry, acceptance threshold, model hash."""

    classes: tuple[str, ...]
    crop_px: int
    margin: float
    threshold: float
    sha256: str
    inputs: tuple[str, ...] = (CROP_INPUT,)
    camera_thresholds: tuple[tuple[float, float], ...] = ()
    """(flat side share, threshold) fitted on the validation crops of each camera."""

    def threshold_for(self, side_share: float) -> float:
        """The acceptance threshold for a camera whose flat dice show side faces of ``side_share``: the one fitted
        for that camera, else the strictest the card states (a camera it was not validated on)."""
        for share, threshold in self.camera_thresholds:
            if abs(share - side_share) < 1e-6:
                return threshold
        return max([self.threshold, *(threshold for _, threshold in self.camera_thresholds)])

    @property
    def reads_the_camera(self) -> bool:
        """Whether the model reads the camera's flat side share beside the crop."""
        return SIDE_INPUT in self.inputs

    @classmethod
    def read(cls, path: Path) -> ReaderCard:
        """The card at ``path``; a missing file or field raises :class:`ModelIntegrityError` naming it."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelIntegrityError(f"{path}: cannot read the model's card ({error})") from error
        try:
            card = cls(tuple(data["classes"]), int(data["crop_px"]), float(data["margin"]),
                       float(data["threshold"]), str(data["sha256"]), tuple(data.get("inputs", [CROP_INPUT])),
                       tuple((float(row["side_share"]), float(row["threshold"]))
                             for row in data.get("camera_thresholds", [])))
        except (KeyError, TypeError, ValueError) as error:
            raise ModelIntegrityError(f"{path}: the card lacks or garbles {error}") from error
        if card.classes[-1] != NOT_A_DIE_NAME or len(card.classes) != 7:
            raise ModelIntegrityError(f"{path}: classes must be the faces 1..6 and {NOT_A_DIE_NAME!r}, "
                                      f"got {card.classes}")
        if not all(0.0 <= threshold <= 1.0 for threshold in (card.threshold, *(t for _, t in card.camera_thresholds))):
            raise ModelIntegrityError(f"{path}: thresholds must be within 0..1, got {card.threshold} and "
                                      f"{list(card.camera_thresholds)}")
        if card.inputs not in ((CROP_INPUT,), (CROP_INPUT, SIDE_INPUT)):
            raise ModelIntegrityError(f"{path}: inputs must be [{CROP_INPUT!r}] or [{CROP_INPUT!r}, {SIDE_INPUT!r}], "
                                      f"got {list(card.inputs)}")
        return card


@dataclass(frozen=True)
class DieRead:
    """One crop's reading: the face (``None`` when declined), the model's confidence in its best class,
    and for a decline its reason and what the model saw."""

    face: int | None
    confidence: float
    decline: Decline | None = None
    detail: str = ""


@dataclass(frozen=True)
class CropProbabilities:
    """The model's output for a batch of crops, with the hash of the model that gave it."""

    probabilities: np.ndarray
    """(N, 7): faces 1..6, then "not a flat readable die"; each row sums to 1."""
    model_sha256: str

    @property
    def best(self) -> np.ndarray:
        """(N,) the most probable class index (0..5 faces 1..6, 6 not a die)."""
        return self.probabilities.argmax(axis=1)

    @property
    def confidence(self) -> np.ndarray:
        """(N,) the probability of the best class."""
        return self.probabilities.max(axis=1)


def sure_face(row: Sequence[float], threshold: float) -> int | None:
    """The acceptance rule: the face (1..6) read when the best class of ``row`` (probabilities of the faces 1..6,
    then "not a flat readable die") is a face whose probability reaches ``threshold``; else None."""
    best = int(np.argmax(row))
    return best + 1 if best < FACES and float(row[best]) >= threshold else None


def decide(probabilities: np.ndarray, threshold: float) -> list[DieRead]:
    """Each crop's reading from its class probabilities: the best face when it is a face and its probability
    reaches ``threshold``, else a decline (UNREADABLE) saying whether the model saw no flat readable die or
    was unsure, with its confidence."""
    reads = []
    for row in np.asarray(probabilities, np.float64):
        best = int(row.argmax())
        confidence = float(row[best])
        if best == len(row) - 1:
            reads.append(DieRead(None, confidence, Decline.UNREADABLE,
                                 f"not a flat readable die (confidence {confidence:.3f})"))
        elif (face := sure_face(row, threshold)) is None:
            reads.append(DieRead(None, confidence, Decline.UNREADABLE,
                                 f"unsure: face {best + 1} at confidence {confidence:.3f}, below {threshold:.3f}"))
        else:
            reads.append(DieRead(face, confidence))
    return reads


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


class DieReaderModel:
    """The per-die classifier loaded from an ONNX file whose SHA-256 its card vouches for."""

    def __init__(self, net: cv2.dnn.Net, card: ReaderCard, path: Path) -> None:
        self._net = net
        self.card = card
        self.path = path

    @classmethod
    def load(cls, path: Path | str = DEFAULT_MODEL) -> DieReaderModel:
        """Load the model at ``path`` after checking its bytes against the card beside it.

        Raises :class:`ModelIntegrityError` naming the file when the model or its card is missing or
        unreadable, or when the model's SHA-256 is not the card's.
        """
        path = Path(path)
        card = ReaderCard.read(card_path(path))
        try:
            actual = file_sha256(path)
        except OSError as error:
            raise ModelIntegrityError(f"{path}: cannot read the model ({error})") from error
        if actual != card.sha256:
            raise ModelIntegrityError(f"{path}: SHA-256 {actual} is not the {card.sha256} its card "
                                      f"{card_path(path).name} states; refusing a changed or foreign model")
        try:
            net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as error:
            raise ModelIntegrityError(f"{path}: OpenCV cannot load the model ({error})") from error
        return cls(net, card, path)

    @property
    def sha256(self) -> str:
        """The model file's SHA-256, to journal with every read."""
        return self.card.sha256

    def crop(self, image: np.ndarray, square: DieSquare) -> np.ndarray:
        """The crop of ``square`` at the size and margin the model was trained on."""
        return rectified_crop(image, square, self.card.crop_px, self.card.margin)

    def probabilities(self, crops: Sequence[np.ndarray], side_share: float | None = None) -> CropProbabilities:
        """The class probabilities of a batch of BGR crops (each ``crop_px`` square, uint8), for a camera whose flat
        dice show side faces of ``side_share`` of an edge (required when the model reads the camera)."""
        size = self.card.crop_px
        if self.card.reads_the_camera and (side_share is None or not 0.0 <= side_share < 1.0):
            raise ValueError(f"{self.path.name} reads the camera: give the side face a flat die shows to it "
                             f"(0..1 of an edge), got {side_share}")
        if len(crops) == 0:
            return CropProbabilities(np.zeros((0, len(self.card.classes)), np.float32), self.sha256)
        for index, crop in enumerate(crops):
            if crop.shape[:2] != (size, size) or crop.ndim != 3 or crop.shape[2] != 3:
                raise ValueError(f"crop {index} is {crop.shape}; the model reads ({size}, {size}, 3) BGR crops")
        blob = cv2.dnn.blobFromImages(list(crops), scalefactor=1.0 / 255.0, size=(size, size), swapRB=False,
                                      crop=False)
        if self.card.reads_the_camera:
            blob = with_side_plane(blob, float(side_share))  # type: ignore[arg-type]
        self._net.setInput(blob)
        logits = self._net.forward().reshape(len(crops), -1).astype(np.float64)
        return CropProbabilities(_softmax(logits).astype(np.float32), self.sha256)

    def read(self, crops: Sequence[np.ndarray], threshold: float | None = None,
             side_share: float | None = None) -> list[DieRead]:
        """Each crop's reading, accepted at the card's calibrated threshold for the camera unless another is given."""
        card_threshold = self.card.threshold if side_share is None else self.card.threshold_for(side_share)
        limit = card_threshold if threshold is None else threshold
        return decide(self.probabilities(crops, side_share).probabilities, limit)

    def read_squares(self, image: np.ndarray, squares: Sequence[DieSquare],
                     threshold: float | None = None, side_share: float | None = None) -> list[DieRead]:
        """Each square's reading in ``image``."""
        return self.read([self.crop(image, s) for s in squares], threshold, side_share)


def with_side_plane(blob: np.ndarray, side_share: float | np.ndarray) -> np.ndarray:
    """``blob`` (N, 3, H, W) with a fourth plane holding the camera's flat side share (one value, or one per crop)."""
    count, _, height, width = blob.shape
    shares = np.broadcast_to(np.asarray(side_share, np.float32).reshape(-1), (count,))
    plane = np.broadcast_to(shares[:, None, None, None], (count, 1, height, width))
    return np.ascontiguousarray(np.concatenate([blob, plane.astype(blob.dtype)], axis=1))
