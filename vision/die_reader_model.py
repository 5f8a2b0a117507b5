"""The learned per-die reader at run time: an ONNX classifier run by ONNX Runtime on the CPU, no training framework.

The model reads a die's upright crop (:func:`vision.die_crop.rectified_crop`) and gives the
probabilities of seven classes: faces 1..6 and "not a flat readable die". Its card, a JSON file beside
the ``.onnx``, states the classes, the crop's size and margin, the calibrated acceptance threshold
(:mod:`vision.die_reader_calibration`) and the model file's SHA-256; :meth:`DieReaderModel.load`
refuses a model file whose hash is not the card's, so every read can name the exact reader that made it
(a certificate names the model by that hash). Below the threshold the reader declines, with its
reason and its confidence, instead of guessing.

ONNX Runtime runs the model on one thread (a bench reads frames while it drives other equipment). The shipped model
has 8-bit weights and activations (``benchmarks/quantize_die_reader.py``), its threshold fitted on its own reads
through ONNX Runtime; its card keeps the probabilities it gave seeded noise crops then (``runtime_check``), which the
tests compare with the runtime in use. The float model it was made of read 2,303 crops per second on one core, the
8-bit one 4,266 (``benchmarks/die_reader_crops.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

import cv2
import numpy as np
import onnxruntime

from vision.declines import Decline
from vision.die_crop import DieSquare, rectified_crop

MODEL_DIR = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = MODEL_DIR / "die_reader.onnx"
FACES = 6
"""Classes 0..5 of the reader's probabilities are the faces 1..6..."""
NOT_A_DIE = FACES
"""...and class 6 is "not a flat readable die"."""
NOT_A_DIE_NAME = "not-a-die"


class ModelIntegrityError(ValueError):
    """A model file that is missing, unreadable or not the one its card describes (the message names the file)."""


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def card_path(model_path: Path) -> Path:
    """The card (JSON) beside a model file."""
    return model_path.with_suffix(".json")


def verified_session(path: Path, sha256: str) -> onnxruntime.InferenceSession:
    """An ONNX Runtime session on one CPU thread for the model at ``path``, after checking its bytes against the
    ``sha256`` its card states; :class:`ModelIntegrityError` naming the file when it is missing, unreadable, not
    that model, or not a model ONNX Runtime can run."""
    try:
        actual = file_sha256(path)
    except OSError as error:
        raise ModelIntegrityError(f"{path}: cannot read the model ({error})") from error
    if actual != sha256:
        raise ModelIntegrityError(f"{path}: SHA-256 {actual} is not the {sha256} its card "
                                  f"{card_path(path).name} states; refusing a changed or foreign model")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: the bench reports its own
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # ONNX Runtime raises its own kinds for a file it cannot parse or run
        raise ModelIntegrityError(f"{path}: ONNX Runtime cannot load the model ({error})") from error


def crops_blob(crops: Sequence[np.ndarray], size: int) -> np.ndarray:
    """The model's input (N, 3, size, size) float32 in 0..1 for a batch of BGR uint8 crops ``size`` px square."""
    return cv2.dnn.blobFromImages(list(crops), scalefactor=1.0 / 255.0, size=(size, size), swapRB=False, crop=False)


def softmax_of(session: onnxruntime.InferenceSession, crops: Sequence[np.ndarray], size: int) -> np.ndarray:
    """The class probabilities (N, classes) float32 that ``session`` gives a batch of BGR uint8 crops, each
    ``size`` px square (:class:`ValueError` naming the crop otherwise)."""
    for index, crop in enumerate(crops):
        if crop.shape[:2] != (size, size) or crop.ndim != 3 or crop.shape[2] != 3:
            raise ValueError(f"crop {index} is {crop.shape}; the model reads ({size}, {size}, 3) BGR crops")
    logits = session.run(None, {session.get_inputs()[0].name: crops_blob(crops, size)})[0]
    logits = logits.reshape(len(crops), -1).astype(np.float64)
    return _softmax(logits).astype(np.float32)


@dataclass(frozen=True)
class ReaderCard:
    """What the card beside a model states: classes, crop geometry, acceptance threshold, model hash."""

    classes: tuple[str, ...]
    crop_px: int
    margin: float
    threshold: float
    sha256: str
    views: int = 1
    """Quarter turns of each crop the model reads, whose probabilities are averaged into the crop's reading
    (:meth:`DieReaderModel.probabilities`; 1: the crop alone). The threshold is fitted on that reading; a card
    without the field states the crop alone."""

    @classmethod
    def read(cls, path: Path) -> ReaderCard:
        """The card at ``path``; a missing file or field raises :class:`ModelIntegrityError` naming it."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelIntegrityError(f"{path}: cannot read the model's card ({error})") from error
        try:
            card = cls(tuple(data["classes"]), int(data["crop_px"]), float(data["margin"]),
                       float(data["threshold"]), str(data["sha256"]), int(data.get("views", 1)))
        except (KeyError, TypeError, ValueError) as error:
            raise ModelIntegrityError(f"{path}: the card lacks or garbles {error}") from error
        if card.classes[-1] != NOT_A_DIE_NAME or len(card.classes) != 7:
            raise ModelIntegrityError(f"{path}: classes must be the faces 1..6 and {NOT_A_DIE_NAME!r}, "
                                      f"got {card.classes}")
        if not 0.0 <= card.threshold <= 1.0:
            raise ModelIntegrityError(f"{path}: threshold must be within 0..1, got {card.threshold}")
        if card.views not in VIEWS:
            raise ModelIntegrityError(f"{path}: views must be one of {VIEWS} quarter turns, got {card.views}")
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


VIEWS = (1, 2, 4)
"""The numbers of views a card may state (:attr:`ReaderCard.views`)."""


def quarter_turn_views(crops: Sequence[np.ndarray], views: int) -> list[np.ndarray]:
    """The crops, then each turned a quarter, ... (``views`` turns of 0, 90, 180, 270 degrees, in that order): a
    quarter turn of an upright crop is exact (no resampling) and shows the die's face as a camera turned a quarter
    would. The pips of a face are its pips at any turn, so the views read the same face. What the mean of two views
    reads with the shipped model, measured and not shipped, is stated at ``benchmarks/train_die_reader.py``'s
    ``SHIPPED_VIEWS``. The card's :data:`VIEWS` check is the one that bounds ``views``."""
    return [crop if turn == 0 else np.ascontiguousarray(np.rot90(crop, turn)) for turn in range(views) for crop in crops]


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


class CardedModel:
    """An ONNX model run by ONNX Runtime, loaded with the card beside it, whose SHA-256 the card vouches for.

    A subclass names its card's kind (``CARD``: a class with ``read(path)`` and the fields ``crop_px``, ``margin``
    and ``sha256``) and its default file (``DEFAULT``)."""

    CARD: ClassVar[type]
    DEFAULT: ClassVar[Path]

    def __init__(self, session: onnxruntime.InferenceSession, card: Any, path: Path) -> None:
        self._session = session
        self.card = card
        self.path = path

    @classmethod
    def load(cls, path: Path | str | None = None) -> Self:
        """Load the model at ``path`` (the subclass's ``DEFAULT`` when None) after checking its bytes against the
        card beside it.

        Raises :class:`ModelIntegrityError` naming the file when the model or its card is missing or
        unreadable, or when the model's SHA-256 is not the card's.
        """
        path = Path(cls.DEFAULT if path is None else path)
        card = cls.CARD.read(card_path(path))
        return cls(verified_session(path, card.sha256), card, path)

    @property
    def sha256(self) -> str:
        """The model file's SHA-256, to journal with every read."""
        return self.card.sha256

    def crop(self, image: np.ndarray, square: DieSquare) -> np.ndarray:
        """The crop of ``square`` at the size and margin the model was trained on."""
        return rectified_crop(image, square, self.card.crop_px, self.card.margin)


class DieReaderModel(CardedModel):
    """The per-die classifier loaded from an ONNX file whose SHA-256 its card vouches for."""

    CARD = ReaderCard
    DEFAULT = DEFAULT_MODEL
    card: ReaderCard

    def probabilities(self, crops: Sequence[np.ndarray]) -> CropProbabilities:
        """The class probabilities of a batch of BGR crops (each ``crop_px`` square, uint8): the mean of the model's
        probabilities for each crop and its quarter turns, as many views as the card states
        (:func:`quarter_turn_views`)."""
        if len(crops) == 0:
            return CropProbabilities(np.zeros((0, len(self.card.classes)), np.float32), self.sha256)
        views = self.card.views
        each = softmax_of(self._session, quarter_turn_views(crops, views), self.card.crop_px)
        return CropProbabilities(each.reshape(views, len(crops), -1).mean(axis=0), self.sha256)

    def read(self, crops: Sequence[np.ndarray], threshold: float | None = None) -> list[DieRead]:
        """Each crop's reading, accepted at the card's calibrated threshold unless another is given."""
        limit = self.card.threshold if threshold is None else threshold
        return decide(self.probabilities(crops).probabilities, limit)

    def read_squares(self, image: np.ndarray, squares: Sequence[DieSquare],
                     threshold: float | None = None) -> list[DieRead]:
        """Each square's reading in ``image``."""
        return self.read([self.crop(image, s) for s in squares], threshold)
