"""The Interpreter interface, tested against relite and LiteRT alike (the
`impl` fixture runs each test on both): outputs against the golden files,
detail dicts, copy and view rules, resizing, signatures, variables, and the
exception types of misuse."""

import json
import os
import pathlib

import numpy as np
import pytest

# Models LiteRT cannot run either (custom ops no runtime has).
NOT_RUNNABLE = {"model_invoking_error", "posenet_mobilenet_v1_075_353_481_16_quant_decoder"}
# Ill-conditioned float outputs (tests/models/golden_float_test.cc says why):
# allow 0.05% of values outside the tolerance, by at most 0.15.
ILL_CONDITIONED = {("pose_landmark_lite", 2)}


def golden_cases(models_dir):
    for model_dir in sorted((models_dir / "golden").iterdir()):
        for case in sorted(p for p in model_dir.iterdir() if p.is_dir()):
            yield model_dir.name, case


def run_golden_case(impl, models_dir, model, case):
    it = impl(model_path=str(models_dir / (model + ".tflite")), num_threads=2)
    it.allocate_tensors()
    for k, d in enumerate(it.get_input_details()):
        raw = (case / ("input_%d.bin" % k)).read_bytes()
        it.set_tensor(d["index"], np.frombuffer(raw, dtype=d["dtype"]).reshape(d["shape"]))
    it.invoke()
    return it, [it.get_tensor(d["index"]) for d in it.get_output_details()]


GOLDEN = []
try:
    import conftest
    if conftest.MODELS.is_dir():
        GOLDEN = [(m, c.name) for m, c in golden_cases(conftest.MODELS)]
except Exception:  # pragma: no cover - the models fixture reports the folder
    GOLDEN = []


@pytest.mark.parametrize("model,case", GOLDEN or [pytest.param("none", "none", marks=pytest.mark.skip("no goldens"))])
def test_outputs_match_golden(impl, models, model, case):
    case_dir = models / "golden" / model / case
    _, outputs = run_golden_case(impl, models, model, case_dir)
    for k, got in enumerate(outputs):
        want = np.frombuffer((case_dir / ("output_%d.bin" % k)).read_bytes(), dtype=got.dtype).reshape(got.shape)
        if np.issubdtype(got.dtype, np.floating):
            bad = np.abs(got.astype(np.float64) - want) > 1e-3 + 1e-3 * np.abs(want)
            if (model, k) in ILL_CONDITIONED:
                assert bad.mean() <= 0.0005 and np.abs(got - want).max() <= 0.15, (model, case, k)
            else:
                assert not bad.any(), "%s/%s output %d: %d values off, max %g" % (
                    model, case, k, bad.sum(), np.abs(got - want).max())
        else:
            assert np.array_equal(got, want), "%s/%s output %d differs (8-bit must be exact)" % (model, case, k)


def _plain(details):
    """A detail dict with numpy arrays as lists, for equality checks."""
    out = {}
    for k, v in details.items():
        if isinstance(v, dict):
            out[k] = _plain(v)
        elif isinstance(v, np.ndarray):
            out[k] = (str(v.dtype), v.tolist())
        else:
            out[k] = v
    return out


def test_details_equal_litert(litert, models):
    import relite
    for path in sorted(models.glob("*.tflite")):
        if path.stem in NOT_RUNNABLE:
            continue
        ours, theirs = relite.Interpreter(model_path=str(path)), litert(model_path=str(path))
        for a, b in [(ours.get_input_details(), theirs.get_input_details()),
                     (ours.get_output_details(), theirs.get_output_details())]:
            assert [_plain(d) for d in a] == [_plain(d) for d in b], path.name
        mine = {d["index"]: (d["name"], d["dtype"], _plain(d["quantization_parameters"])) for d in ours.get_tensor_details()}
        ref = {d["index"]: (d["name"], d["dtype"], _plain(d["quantization_parameters"])) for d in theirs.get_tensor_details()}
        assert mine == ref, path.name


def test_detail_types(impl, models):
    it = impl(model_path=str(models / "mobilenet_v1_0.25_128_quant.tflite"))
    d = it.get_input_details()[0]
    assert sorted(d) == ["dtype", "index", "name", "quantization", "quantization_parameters", "shape",
                         "shape_signature", "sparsity_parameters"]
    assert d["dtype"] is np.uint8 and isinstance(d["index"], int) and isinstance(d["name"], str)
    assert d["shape"].dtype == np.int32 and d["shape"].tolist() == [1, 128, 128, 3]
    assert d["shape_signature"].dtype == np.int32
    scale, zero_point = d["quantization"]
    assert isinstance(scale, float) and isinstance(zero_point, int)
    q = d["quantization_parameters"]
    assert q["scales"].dtype == np.float32 and q["zero_points"].dtype == np.int32
    assert isinstance(q["quantized_dimension"], int)


def test_model_content_equals_model_path(impl, models):
    path = models / "mobilenet_quant_v1_224_head_layers.tflite"
    outs = []
    for it in (impl(model_path=str(path)), impl(model_content=path.read_bytes())):
        it.allocate_tensors()
        d = it.get_input_details()[0]
        it.set_tensor(d["index"], (np.arange(np.prod(d["shape"])) % 251).astype(d["dtype"]).reshape(d["shape"]))
        it.invoke()
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert np.array_equal(outs[0], outs[1])


def test_get_tensor_copies_and_tensor_views(impl, models):
    it = impl(model_path=str(models / "split_concat.tflite"))
    it.allocate_tensors()
    d = it.get_input_details()[0]
    view = it.tensor(d["index"])
    view()[...] = 7  # writes the interpreter's memory
    copy = it.get_tensor(d["index"])
    assert copy.flags["OWNDATA"] or copy.base is None or not np.shares_memory(copy, view())
    assert (copy == 7).all()
    copy[...] = 1
    assert (it.get_tensor(d["index"]) == 7).all()  # the copy is not the tensor


def test_a_live_view_blocks_invoke_and_allocate(impl, models):
    it = impl(model_path=str(models / "split_concat.tflite"))
    it.allocate_tensors()
    fn = it.tensor(it.get_input_details()[0]["index"])
    it.invoke()  # holding the function is fine
    array = fn()
    with pytest.raises(RuntimeError):
        it.invoke()
    with pytest.raises(RuntimeError):
        it.allocate_tensors()
    del array
    it.invoke()


def test_misuse_raises_what_litert_raises(impl, models):
    path = str(models / "mobilenet_v1_0.25_128_quant.tflite")
    with pytest.raises(ValueError):
        impl()
    with pytest.raises(ValueError):
        impl(model_path=str(models / "no_such_model.tflite"))
    with pytest.raises(ValueError):
        impl(model_content=b"garbage" * 20)
    it = impl(model_path=path)
    d = it.get_input_details()[0]
    with pytest.raises(RuntimeError):
        it.invoke()  # before allocate_tensors
    with pytest.raises(ValueError):
        it.get_tensor(d["index"])  # no data yet
    it.allocate_tensors()
    with pytest.raises(ValueError):
        it.set_tensor(d["index"], np.zeros(d["shape"], np.float32))  # wrong dtype
    with pytest.raises(ValueError):
        it.set_tensor(d["index"], np.zeros((1, 2, 2, 3), np.uint8))  # wrong shape
    with pytest.raises(ValueError):
        it.set_tensor(d["index"], np.zeros((128, 128, 3), np.uint8))  # wrong rank
    with pytest.raises(ValueError):
        it.get_tensor(100000)
    with pytest.raises(ValueError):
        it.set_tensor(100000, np.zeros(3, np.uint8))
    with pytest.raises(RuntimeError):
        it.resize_tensor_input(7, [1])  # not an input
    with pytest.raises(ValueError):
        it.get_signature_runner()  # the model has no SignatureDef


def test_unresolved_custom_op_fails_by_allocation(impl, models):
    with pytest.raises((ValueError, RuntimeError)) as e:
        it = impl(model_path=str(models / "model_invoking_error.tflite"))
        it.allocate_tensors()
    assert "fake-op-double" in str(e.value)


def test_resize_and_strict_resize(impl, test_models):
    it = impl(model_path=str(test_models / "signature_add.tflite"))
    x, y = [d["index"] for d in it.get_input_details()]
    assert it.get_input_details()[0]["shape_signature"].tolist() == [-1, 4]
    it.resize_tensor_input(x, [3, 4], strict=True)  # the batch is free
    it.resize_tensor_input(y, [3, 4])
    it.allocate_tensors()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    it.set_tensor(x, a)
    it.set_tensor(y, a * 10)
    it.invoke()
    out = it.get_output_details()[0]
    assert out["shape"].tolist() == [3, 4]
    assert np.array_equal(it.get_tensor(out["index"]), a * 11)
    with pytest.raises(RuntimeError):
        it.resize_tensor_input(x, [3, 5], strict=True)  # dimension 1 is fixed
        it.allocate_tensors()


def test_flush_denormals_keyword(test_models):
    """relite's own keyword: subnormal floats read as zero by default, IEEE with flush_denormals=False."""
    import relite
    path = str(test_models / "signature_add.tflite")
    tiny = np.full((1, 4), 1e-40, dtype=np.float32)  # subnormal: below 1.18e-38
    sums = []
    for flush in (True, False):
        it = relite.Interpreter(model_path=path, flush_denormals=flush)
        it.allocate_tensors()
        x, y = [d["index"] for d in it.get_input_details()]
        it.set_tensor(x, tiny)
        it.set_tensor(y, np.zeros((1, 4), dtype=np.float32))
        it.invoke()
        sums.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert np.array_equal(sums[0], np.zeros((1, 4), dtype=np.float32))
    assert np.array_equal(sums[1], tiny)


def test_signatures(impl, test_models):
    it = impl(model_path=str(test_models / "signature_add.tflite"))
    assert it.get_signature_list() == {"serving_default": {"inputs": ["x", "y"], "outputs": ["sum"]}}
    runner = it.get_signature_runner()  # the only one
    assert sorted(runner.get_input_details()) == ["x", "y"]
    assert list(runner.get_output_details()) == ["sum"]
    got = runner(x=np.ones((1, 4), np.float32), y=np.full((1, 4), 2, np.float32))
    assert list(got) == ["sum"] and np.array_equal(got["sum"], np.full((1, 4), 3, np.float32))
    batch = it.get_signature_runner("serving_default")(x=np.ones((2, 4), np.float32), y=np.ones((2, 4), np.float32))
    assert batch["sum"].shape == (2, 4)
    with pytest.raises(ValueError):
        it.get_signature_runner("no_such_signature")


def test_reset_all_variables(impl, models):
    it = impl(model_path=str(models / "keras_lstm_mnist_ptq.tflite"))
    it.allocate_tensors()
    d = it.get_input_details()[0]
    x = (np.arange(np.prod(d["shape"])) % 200).astype(d["dtype"]).reshape(d["shape"])
    outs = []
    for reset in (False, False, True):
        if reset:
            it.reset_all_variables()
        it.set_tensor(d["index"], x)
        it.invoke()
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert np.array_equal(outs[0], outs[2])


def test_same_outputs_as_litert_on_pseudo_random_inputs(litert, models):
    import relite
    rng = np.random.default_rng(7)
    for path in sorted(models.glob("*.tflite")):
        if path.stem in NOT_RUNNABLE:
            continue
        ours, theirs = relite.Interpreter(model_path=str(path), num_threads=2), litert(model_path=str(path), num_threads=2)
        for it in (ours, theirs):
            it.allocate_tensors()
        for d in ours.get_input_details():
            if np.issubdtype(d["dtype"], np.floating):
                v = rng.uniform(-1, 1, d["shape"]).astype(d["dtype"])
            else:
                info = np.iinfo(d["dtype"])
                v = rng.integers(info.min, info.max, d["shape"], endpoint=True).astype(d["dtype"])
            ours.set_tensor(d["index"], v)
            theirs.set_tensor(d["index"], v)
        ours.invoke()
        theirs.invoke()
        for k, (a, b) in enumerate(zip(ours.get_output_details(), theirs.get_output_details())):
            x, y = ours.get_tensor(a["index"]), theirs.get_tensor(b["index"])
            if np.issubdtype(x.dtype, np.floating):
                if (path.stem, k) in ILL_CONDITIONED:
                    # Off pictures the decoder amplifies rounding further:
                    # relative to the output's magnitude, as tflite_interop_test.
                    bad = np.abs(x - y) > 1e-3 + 1e-3 * np.abs(y).max()
                else:
                    bad = np.abs(x - y) > 1e-3 + 1e-3 * np.abs(y)
                assert not bad.any(), "%s output %d: %d values off, max %g" % (path.name, k, bad.sum(), np.abs(x - y).max())
            else:
                assert np.array_equal(x, y), "%s output %d differs" % (path.name, k)


def test_gpu_delegate_through_experimental_delegates(models):
    import relite
    try:
        gpu = relite.load_delegate("gpu")
    except ValueError as e:
        pytest.skip("no GPU delegate on this machine: %s" % e)
    path = str(models / "selfie_segmentation.tflite")
    on_gpu = relite.Interpreter(model_path=path, experimental_delegates=[gpu])
    on_cpu = relite.Interpreter(model_path=path)
    x = np.random.default_rng(3).uniform(0, 1, (1, 256, 256, 3)).astype(np.float32)
    outs = []
    for it in (on_gpu, on_cpu):
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert np.allclose(outs[0], outs[1], atol=1e-3, rtol=1e-3)
    with pytest.raises(ValueError):
        relite.load_delegate("no_such_delegate")
    with pytest.raises(ValueError):
        relite.load_delegate("gpu", {"precision": "fp8"})


def test_onednn_delegate_through_experimental_delegates(models):
    """oneDNN takes hand_landmark_lite whole (forced, so on any x86-64 with
    libdnnl2) and matches the CPU within fp32's bound."""
    import relite
    onednn = relite.load_delegate("onednn", {"force": True})
    if onednn.unavailable_reason:
        if os.environ.get("CI") == "true":
            pytest.fail("oneDNN delegate unavailable in CI: %s" % onednn.unavailable_reason)
        pytest.skip(onednn.unavailable_reason)
    path = str(models / "hand_landmark_lite.tflite")
    on_onednn = relite.Interpreter(model_path=path, experimental_delegates=[onednn])
    on_cpu = relite.Interpreter(model_path=path)
    x = np.random.default_rng(5).uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32)
    outs = []
    for it in (on_onednn, on_cpu):
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outs.append([it.get_tensor(d["index"]) for d in it.get_output_details()])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError):
        relite.load_delegate("onednn", {"precision": "fp16"})
    with pytest.raises(ValueError):
        relite.load_delegate("onednn", {"threads": -1})


def _dequantized_constants(interp):
    """Name -> float weights of every quantized constant, from LiteRT's view."""
    out = {}
    for d in interp.get_tensor_details():
        q = d["quantization_parameters"]
        if d["dtype"] != np.int8 or len(q["scales"]) == 0:
            continue
        w = interp.get_tensor(d["index"]).astype(np.float64)
        shape = [1] * w.ndim
        shape[q["quantized_dimension"]] = -1
        out[d["name"]] = (w - q["zero_points"].reshape(shape)) * q["scales"].reshape(shape)
    return out


def test_dynamic_range_model_on_cpu_matches_litert(litert, test_models):
    """The CPU runs TFLite's hybrid kernels' arithmetic (inputs quantized to
    int8 per batch, integer sums scaled back): LiteRT's outputs within float
    rounding, not within the input-rounding bound the GPU test needs. Against
    TFLite's own builtin kernels: the default XNNPACK delegate quantizes the
    FULLY_CONNECTED input its own way (about 1% apart here)."""
    import relite
    from ai_edge_litert.interpreter import OpResolverType
    path = str(test_models / "dynamic_range.tflite")
    ref = litert(model_path=path, experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    ours = relite.Interpreter(model_path=path)
    rng = np.random.default_rng(12)
    feeds = {"x": rng.uniform(-1, 1, (1, 8, 8, 6)).astype(np.float32),
             "v": rng.uniform(-2, 2, (2, 40)).astype(np.float32)}
    outs = []
    for it in (ref, ours):
        it.allocate_tensors()
        for d in it.get_input_details():
            it.set_tensor(d["index"], feeds[d["name"]])
        it.invoke()
        outs.append({d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()})
    for name in ("conv", "fc"):
        np.testing.assert_allclose(outs[1][name], outs[0][name], rtol=1e-5, atol=1e-5, err_msg=name)


def test_dynamic_range_model_on_gpu_matches_litert_hybrid_kernels(litert, test_models):
    """int8 weights feeding float CONV_2D / FULLY_CONNECTED: relite runs them on
    the GPU with the weights dequantized once; LiteRT's CPU hybrid kernels
    quantize each input batch to int8 (scale max|x|/127) and accumulate in
    integers. So each output differs by at most half an input step times the
    sum of |w| over its taps (plus float rounding, 1e-4)."""
    import relite
    try:
        gpu = relite.load_delegate("gpu")
    except ValueError as e:
        if os.environ.get("RELITE_REQUIRE_GPU") == "1":
            pytest.fail("no GPU delegate (RELITE_REQUIRE_GPU=1): %s" % e)
        pytest.skip("no GPU delegate on this machine: %s" % e)
    path = str(test_models / "dynamic_range.tflite")
    ref = litert(model_path=path)
    ours = relite.Interpreter(model_path=path, experimental_delegates=[gpu])
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, (1, 8, 8, 6)).astype(np.float32)
    v = rng.uniform(-2, 2, (2, 40)).astype(np.float32)
    outs = []
    for it in (ref, ours):
        it.allocate_tensors()
        inputs = {d["name"]: d["index"] for d in it.get_input_details()}
        it.set_tensor(inputs["x"], x)
        it.set_tensor(inputs["v"], v)
        it.invoke()
        outs.append({d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()})
    w = _dequantized_constants(ref)
    # Sum of |w| over a filter's taps: the worst case of the input rounding.
    conv_bound = 0.5 * np.abs(x).max() / 127 * np.abs(w["conv/filter"]).sum(axis=(1, 2, 3))
    fc_bound = 0.5 * (np.abs(v).max(axis=1, keepdims=True) / 127) * np.abs(w["fc/weights"]).sum(axis=1)
    for name, bound in (("conv", conv_bound), ("fc", fc_bound)):
        a, b = outs[1][name], outs[0][name]
        err = np.abs(a - b)
        assert (err <= bound + 1e-4).all(), "%s: max error %g, bound %g" % (name, err.max(), (bound + 1e-4).min())
        # The bound is not vacuous: the outputs are far larger than it.
        assert np.abs(b).max() > 10 * bound.max()
    # And against the same weights in float (numpy): the GPU's own error.
    conv_ref = np.zeros((1, 8, 8, 10))
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    for dy in range(3):
        for dx in range(3):
            conv_ref += np.einsum("nhwc,oc->nhwo", xp[:, dy:dy + 8, dx:dx + 8, :], w["conv/filter"][:, dy, dx, :])
    fc_ref = v.astype(np.float64) @ w["fc/weights"].T
    biases = {d["name"]: ref.get_tensor(d["index"]) for d in ref.get_tensor_details() if d["name"].endswith("/bias")}
    for name, r in (("conv", conv_ref), ("fc", fc_ref)):
        assert np.allclose(outs[1][name], r + biases[name + "/bias"], atol=1e-3, rtol=1e-3), name


def test_relite_interpreter_module_path():
    import relite
    import relite.interpreter
    assert relite.interpreter.Interpreter is relite.Interpreter
