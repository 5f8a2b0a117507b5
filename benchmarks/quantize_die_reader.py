"""Quantize the per-die reader to 8-bit integers, fit its threshold again, write its card.

The float model's convolutions and dense layers are rewritten with 8-bit weights (per output channel) and 8-bit
activations (ONNX Runtime's static quantization, QOperator format). The activations' ranges are fixed on crops the
threshold is never fitted on: a seeded draw of :data:`CALIBRATION_CROPS` centre crops of the train part's patches
(labelled dice, the seventh class around them and the squares the stages propose there, on both photo sets) and
of rendered train frames. Weights use 7 bits (``reduce_range``, ONNX Runtime's setting for processors without
VNNI instructions, whose 8-bit product sums otherwise saturate). A processor's kernels may still round a little
differently: `bench read dice --labels yolo` on a lab's own photos measures the reader on the lab's machine.

The quantized model is a new model: its card states its own SHA-256, the float model's (``quantized.from_sha256``)
and a threshold fitted again on the validation data of the float model's protocol
(:func:`train_die_reader.recalibrate`), so it vouches for at most 1 wrong read per 1,000 accepted on its own reads.
The card also keeps the probabilities the model gives :data:`train_die_reader.RUNTIME_CHECK_CROPS` seeded noise crops
(``runtime_check``): a test compares them with what the runtime in use gives. The model and its card are made in a
scratch folder and moved to ``--out`` when finished, so an interrupted run leaves the model there as it was. After it,
the lean model's threshold is fitted again on the dice it reads (``benchmarks/train_die_lean.py --calibrate-only``).

Needs the ``train`` extra (onnx). Run::

    nice .venv/bin/python benchmarks/quantize_die_reader.py --model FLOAT.onnx --out vision/models/die_reader.onnx
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import train_die_reader as training

from vision.die_reader_model import DieReaderModel, card_path, crops_blob, file_sha256
from vision.die_samples import photos_in
from vision.yolo_labels import BYLER_PHOTOS, MATTEOP65_PHOTOS, labelled_images

CALIBRATION_CROPS = 2000
"""Crops the activations' ranges are fixed on."""
CALIBRATION_SEED = 20261202
"""Seed of the draw of those crops."""
CALIBRATION_RENDERED_FRAMES = 100
"""Rendered train frames among the patches drawn from."""
BATCH = 100
"""Crops per calibration batch."""
runtime_check_crops = training.runtime_check_crops
"""The seeded noise crops whose probabilities the card keeps (written with the threshold by
:func:`train_die_reader.recalibrate`)."""


def range_crops(protocol: str, crop_px: int, count: int = CALIBRATION_CROPS, seed: int = CALIBRATION_SEED
                ) -> np.ndarray:
    """``count`` centre crops (N, crop_px, crop_px, 3) uint8 drawn with ``seed`` from the train part's patches of
    ``protocol``'s photos and from rendered train frames: data the threshold is never fitted on."""
    rng = np.random.default_rng(seed)
    patches = training.photo_patches(photos_in(labelled_images(BYLER_PHOTOS), "train"), "die", rng)
    if protocol == "B":
        patches = patches + training.photo_patches(photos_in(labelled_images(MATTEOP65_PHOTOS), "train"), "pips", rng)
    patches = patches + training.render_patches(training.SEED, CALIBRATION_RENDERED_FRAMES)
    chosen = rng.choice(len(patches.labels), size=min(count, len(patches.labels)), replace=False)
    return np.array([training.centre_crop(patches.images[i], crop_px) for i in np.sort(chosen)], np.uint8)


def blobs(crops: np.ndarray) -> list[np.ndarray]:
    """The crops as the model's input batches, made as at run time (:func:`vision.die_reader_model.crops_blob`)."""
    return [crops_blob(crops[i:i + BATCH], crops.shape[1]) for i in range(0, len(crops), BATCH)]


def quantize(float_model: Path, out: Path, crops: np.ndarray) -> None:
    """Write the 8-bit model of ``float_model`` to ``out``, its activations' ranges fixed on ``crops``."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    input_name = onnx.load(str(float_model)).graph.input[0].name

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self._batches = iter(blobs(crops))

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self._batches, None)
            return None if batch is None else {input_name: batch}

    out.parent.mkdir(parents=True, exist_ok=True)
    quantize_static(str(float_model), str(out), Batches(), quant_format=QuantFormat.QOperator, per_channel=True,
                    reduce_range=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="the float model (its card beside it)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the 8-bit model and its card")
    args = parser.parse_args(argv)
    if args.model.resolve() == args.out.resolve():
        parser.error("--out must not be --model: the float model is the quantized model's source")
    started = time.monotonic()
    source = DieReaderModel.load(args.model)  # refuses a changed or foreign float model
    card = json.loads(card_path(args.model).read_text(encoding="utf-8"))
    protocol = card.get("protocol", "A")
    crops = range_crops(protocol, source.card.crop_px)
    with tempfile.TemporaryDirectory() as scratch:  # --out is written whole or not at all
        model = Path(scratch) / args.out.name
        quantize(args.model, model, crops)
        card |= {"sha256": file_sha256(model), "threshold": 1.0, "model_bytes": model.stat().st_size,
                 "quantized": {"from_sha256": source.sha256, "format": "QOperator",
                               "weights": "int8 per channel, 7 bits", "activations": "uint8",
                               "range_crops": len(crops), "range_seed": CALIBRATION_SEED,
                               "range_rendered_frames": CALIBRATION_RENDERED_FRAMES}}
        card.pop("calibration", None)
        card_path(model).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        status = training.recalibrate(model, protocol)  # the threshold and the runtime check
        card = json.loads(card_path(model).read_text(encoding="utf-8"))
        card["quantized"]["seconds"] = round(time.monotonic() - started, 1)
        card_path(model).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        # the model first: between the two a reader refuses the pair (the card's hash is not the model's)
        shutil.move(str(model), args.out)
        shutil.move(str(card_path(model)), card_path(args.out))
    print(f"wrote {args.out} ({card['model_bytes']} bytes, sha256 {card['sha256']}), threshold {card['threshold']}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
