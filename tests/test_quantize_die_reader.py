"""The per-die reader's 8-bit quantization: the quantized model reads as its float model, its card names both models
and its own hash, and the script refuses to overwrite its source or to quantize a changed model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from benchmark_scripts import load_benchmark
from onnx import TensorProto, helper, numpy_helper

from vision.die_reader_model import DieReaderModel, ModelIntegrityError, card_path, file_sha256

quantizer = load_benchmark("quantize_die_reader")

CROP_PX = 16


def _float_model(folder: Path, seed: int = 5) -> Path:
    """A small float CNN of the reader's interface (crops of CROP_PX in, seven logits out) with seeded weights, and
    its card."""
    rng = np.random.default_rng(seed)
    weights = {"w1": rng.normal(0, 0.4, (8, 3, 3, 3)), "b1": rng.normal(0, 0.1, 8),
               "w2": rng.normal(0, 0.2, (16, 8, 3, 3)), "b2": rng.normal(0, 0.1, 16),
               "w3": rng.normal(0, 0.3, (7, 16)), "b3": rng.normal(0, 0.1, 7)}
    nodes = [helper.make_node("Conv", ["crops", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], transB=1)]
    graph = helper.make_graph(
        nodes, "reader", [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, CROP_PX, CROP_PX])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 7])],
        [numpy_helper.from_array(value.astype(np.float32), name) for name, value in weights.items()])
    path = folder / "float.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    card = {"classes": ["1", "2", "3", "4", "5", "6", "not-a-die"], "crop_px": CROP_PX, "margin": 0.25,
            "threshold": 0.9, "sha256": file_sha256(path), "protocol": "B", "calibration": {"threshold": 0.9}}
    card_path(path).write_text(json.dumps(card), encoding="utf-8")
    return path


def _crops(count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (count, CROP_PX, CROP_PX, 3), dtype=np.uint8)


def _probabilities(path: Path, crops: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits = session.run(None, {"crops": quantizer.blobs(crops)[0]})[0].astype(np.float64)
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def test_the_quantized_model_is_8_bit_and_reads_as_its_float_model(tmp_path: Path) -> None:
    source = _float_model(tmp_path)
    out = tmp_path / "int8.onnx"
    quantizer.quantize(source, out, _crops(300, seed=1))
    ops = {node.op_type for node in onnx.load(str(out)).graph.node}
    assert {"QLinearConv", "QuantizeLinear"} <= ops and "Conv" not in ops
    fresh = _crops(100, seed=2)  # crops the ranges were not fixed on
    floats, int8s = _probabilities(source, fresh), _probabilities(out, fresh)
    assert np.mean(floats.argmax(1) == int8s.argmax(1)) >= 0.95
    assert np.abs(floats - int8s).max() < 0.05


def test_main_writes_a_card_with_its_own_hash_its_source_and_a_threshold_fitted_on_its_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _float_model(tmp_path)
    out = tmp_path / "shipped" / "die_reader.onnx"
    monkeypatch.setattr(quantizer, "range_crops", lambda protocol, crop_px: _crops(200, seed=3))
    fitted_on: list[str] = []

    def recalibrate(path: Path, protocol: str) -> int:  # stands in for the fit on the validation data
        fitted_on.append(file_sha256(path))
        card = json.loads(card_path(path).read_text(encoding="utf-8"))
        card |= {"threshold": 0.97, "calibration": {"threshold": 0.97},
                 "runtime_check": quantizer.training.runtime_check(DieReaderModel.load(path))}
        card_path(path).write_text(json.dumps(card), encoding="utf-8")
        return 0

    monkeypatch.setattr(quantizer.training, "recalibrate", recalibrate)
    assert quantizer.main(["--model", str(source), "--out", str(out)]) == 0
    card = json.loads(card_path(out).read_text(encoding="utf-8"))
    assert card["sha256"] == file_sha256(out) == fitted_on[0] != file_sha256(source)
    assert card["quantized"]["from_sha256"] == file_sha256(source)
    assert card["threshold"] == 0.97 and card["model_bytes"] == out.stat().st_size
    assert DieReaderModel.load(out).card.threshold == 0.97  # the bench loads it, hash checked
    check = card["runtime_check"]
    crops = np.array(quantizer.runtime_check_crops(CROP_PX, check["seed"], check["crops"]))
    assert np.abs(_probabilities(out, crops) - np.array(check["probabilities"])).max() < 1e-5


def test_main_refuses_to_write_over_its_source(tmp_path: Path) -> None:
    source = _float_model(tmp_path)
    with pytest.raises(SystemExit) as raised:
        quantizer.main(["--model", str(source), "--out", str(source)])
    assert raised.value.code == 2


def test_main_refuses_a_float_model_its_card_does_not_vouch_for(tmp_path: Path) -> None:
    source = _float_model(tmp_path)
    source.write_bytes(source.read_bytes() + b"\0")
    with pytest.raises(ModelIntegrityError, match="refusing a changed or foreign model"):
        quantizer.main(["--model", str(source), "--out", str(tmp_path / "out.onnx")])
    assert not (tmp_path / "out.onnx").exists()


def test_an_interrupted_run_leaves_the_model_at_out_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _float_model(tmp_path)
    out = tmp_path / "shipped" / "die_reader.onnx"
    out.parent.mkdir()
    out.write_bytes(b"the model in use")
    card_path(out).write_text("{}", encoding="utf-8")
    monkeypatch.setattr(quantizer, "range_crops", lambda protocol, crop_px: _crops(200, seed=3))

    def interrupted(path: Path, protocol: str) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(quantizer.training, "recalibrate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        quantizer.main(["--model", str(source), "--out", str(out)])
    assert out.read_bytes() == b"the model in use" and card_path(out).read_text(encoding="utf-8") == "{}"
