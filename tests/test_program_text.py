"""Program.to_string / str(program): op attributes typed and printed as Paddle 1.8.5 prints
them (the text below measured on 1.8.5 with the same programs). specs/program.md."""
import re

import numpy as np

from refimpl import fluid, versions


def _ops(text):
    """[(op type, {attr name: (type, [value texts])})] of each `ops {...}` of the text."""
    found = []
    for body in re.findall(r"\n  ops \{\n(.*?)\n  \}", text, re.S):
        attrs = {}
        for attr in re.findall(r"\n    attrs \{\n(.*?)\n    \}", "\n" + body, re.S):
            lines = [line.strip() for line in attr.splitlines()]
            name = lines[0][len('name: "'):-1]
            attrs[name] = (lines[1][len("type: "):], [line.split(": ", 1)[1]
                                                      for line in lines[2:]])
        found.append((re.search(r'\n    type: "(.*)"', "\n" + body).group(1), attrs))
    return found


def _assert_attrs(op, expected):
    op_type, attrs = op
    assert {name: attrs.get(name) for name in expected} == expected, op_type


def _fc_adam_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[-1, 4], dtype="float32")
        y = fluid.data(name="y", shape=[-1, 1], dtype="int64")
        h = fluid.layers.fc(x, size=3)
        avg = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(h, y))
        fluid.layers.cast(x, "float64")
        fluid.optimizer.Adam(learning_rate=0.01).minimize(avg)
    return main


def test_op_attributes_take_paddle_18_declared_types_and_values():
    with versions.use("1.8"):
        ops = _ops(_fc_adam_program().to_string(True))
    assert [t for t, _ in ops] == [
        "mul", "elementwise_add", "softmax_with_cross_entropy", "mean", "cast",
        "fill_constant", "mean_grad", "softmax_with_cross_entropy_grad",
        "elementwise_add_grad", "mul_grad", "adam", "adam"]
    _assert_attrs(ops[0], {"x_num_col_dims": ("INT", ["1"]), "scale_y": ("FLOATS", ["1.0"]),
                           "force_fp32_output": ("BOOLEAN", ["false"]),
                           "op_role": ("INT", ["0"]), "op_role_var": ("STRINGS", []),
                           "op_namescope": ("STRING", ['"/"'])})
    _assert_attrs(ops[2], {"axis": ("INT", ["-1"]), "ignore_index": ("INT", ["-100"]),
                           "numeric_stable_mode": ("BOOLEAN", ["true"])})
    _assert_attrs(ops[3], {"op_role": ("INT", ["256"])})
    # a dtype attribute is its VarType code (FP32 5, FP64 6), not its name
    _assert_attrs(ops[4], {"in_dtype": ("INT", ["5"]), "out_dtype": ("INT", ["6"])})
    # fill_constant's shape is LONGS; a FLOAT is the float32 Paddle holds, as a double
    _assert_attrs(ops[5], {"shape": ("LONGS", ["1"]), "dtype": ("INT", ["5"]),
                           "value": ("FLOAT", ["1.0"]), "op_role": ("INT", ["257"])})
    _assert_attrs(ops[11], {"beta1": ("FLOAT", ["0.8999999761581421"]),
                            "beta2": ("FLOAT", ["0.9990000128746033"]),
                            "epsilon": ("FLOAT", ["9.99999993922529e-09"]),
                            "lazy_mode": ("BOOLEAN", ["false"]),
                            "op_role": ("INT", ["2"]),
                            "op_role_var": ("STRINGS", ['"fc_0.w_0"', '"fc_0.w_0@GRAD"'])})
    assert ops[11][1]["min_row_size_to_use_multithread"][0] == "LONG"


def test_conv_batch_norm_pool_fill_constant_and_while_attributes():
    main = fluid.Program()
    with versions.use("1.8"), fluid.program_guard(main, fluid.Program()):
        img = fluid.data(name="img", shape=[-1, 3, 8, 8], dtype="float32")
        c = fluid.layers.conv2d(img, num_filters=4, filter_size=3, padding=1,
                                bias_attr=False)
        p = fluid.layers.pool2d(fluid.layers.batch_norm(c), pool_size=2, pool_stride=2)
        fluid.layers.fill_constant([3], "int64", 2 ** 40)
        i = fluid.layers.fill_constant(shape=[1], dtype="int64", value=0)
        n = fluid.layers.fill_constant(shape=[1], dtype="int64", value=10)
        cond = fluid.layers.less_than(x=i, y=n)
        loop = fluid.layers.While(cond=cond)
        with loop.block():
            fluid.layers.assign(fluid.layers.scale(p, scale=1.5, bias=0.25), p)
            fluid.layers.increment(x=i, value=1, in_place=True)
            fluid.layers.less_than(x=i, y=n, cond=cond)
        ops = {t: attrs for t, attrs in _ops(main.to_string(True))}
    _assert_attrs(("conv2d", ops["conv2d"]), {
        "strides": ("INTS", ["1", "1"]), "paddings": ("INTS", ["1", "1"]),
        "dilations": ("INTS", ["1", "1"]), "groups": ("INT", ["1"]),
        "data_format": ("STRING", ['"NCHW"']), "padding_algorithm": ("STRING", ['"EXPLICIT"'])})
    _assert_attrs(("batch_norm", ops["batch_norm"]), {
        "epsilon": ("FLOAT", ["9.999999747378752e-06"]),
        "momentum": ("FLOAT", ["0.8999999761581421"]), "is_test": ("BOOLEAN", ["false"]),
        "data_layout": ("STRING", ['"NCHW"'])})
    _assert_attrs(("pool2d", ops["pool2d"]), {
        "ksize": ("INTS", ["2", "2"]), "pooling_type": ("STRING", ['"max"']),
        "exclusive": ("BOOLEAN", ["true"]), "ceil_mode": ("BOOLEAN", ["false"])})
    # the first fill_constant: an int64 2**40
    first_fill = _ops(main.to_string(True))[3]
    _assert_attrs(first_fill, {"shape": ("LONGS", ["3"]), "dtype": ("INT", ["3"]),
                               "value": ("FLOAT", ["1099511627776.0"])})
    _assert_attrs(("while", ops["while"]), {"sub_block": ("BLOCK", ["1"]),
                                            "is_test": ("BOOLEAN", ["false"])})
    _assert_attrs(("scale", ops["scale"]), {"scale": ("FLOAT", ["1.5"]),
                                            "bias": ("FLOAT", ["0.25"]),
                                            "bias_after_scale": ("BOOLEAN", ["true"])})


def test_strings_are_escaped_as_protobuf_text_format():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="x", shape=[-1, 4], dtype="float32")
        with fluid.name_scope("a'b\t\u00e9"):
            fluid.layers.scale(x, scale=0.1, bias=1e20)
    (_, attrs), = _ops(main.to_string(True))
    assert attrs["op_namescope"] == ("STRING", ['"/a\\\'b\\t\\303\\251/"'])
    assert attrs["scale"] == ("FLOAT", ["0.10000000149011612"])
    assert attrs["bias"] == ("FLOAT", ["1.0000000200408773e+20"])


def test_str_of_a_program_is_its_desc_text_under_1_8():
    with versions.use("1.8"):
        main = _fc_adam_program()
        assert str(main) == main.to_string(True)
        # attributes print by name, so the program read back prints the same (as 1.8.5)
        restored = fluid.Program.parse_from_string(main.desc.serialize_to_string())
        assert str(restored) == str(main)
        detailed = main.to_string(True, True)
    # 1.8.5's Parameter details end at do_model_average; 2.0's add need_clip
    assert "    do_model_average: True\n  }" in detailed and "need_clip" not in detailed
    with versions.use("2.0"):
        assert str(main).startswith("{ // block 0\n")
        assert "    do_model_average: True\n    need_clip: True\n  }" in \
            main.to_string(True, True)


def _conv_softmax_adam_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        img = fluid.data(name="img", shape=[-1, 3, 8, 8], dtype="float32")
        label = fluid.data(name="label", shape=[-1, 1], dtype="int64")
        c = fluid.layers.conv2d(img, num_filters=4, filter_size=3, padding=1, act="relu")
        p = fluid.layers.pool2d(c, pool_size=2, pool_stride=2, pool_type="max")
        prob = fluid.layers.softmax(fluid.layers.fc(p, size=5))
        loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main


def test_1_8_ops_hold_the_attributes_paddle_18_declares():
    # measured on Paddle 1.8.5 with the same program: every op desc holds its OpProto's
    # attributes, grad ops those of their forward op (1.8.5's softmax_grad / pool2d_grad
    # kernels fail on a desc without them)
    with versions.use("1.8"):
        ops = _ops(_conv_softmax_adam_program().to_string(True))
    by_type = {}
    for op_type, attrs in ops:
        by_type.setdefault(op_type, []).append(attrs)
    softmax = {"axis": ("INT", ["-1"]), "data_format": ("STRING", ['"AnyLayout"']),
               "is_test": ("BOOLEAN", ["false"]), "use_cudnn": ("BOOLEAN", ["false"]),
               "use_mkldnn": ("BOOLEAN", ["false"])}
    _assert_attrs(("softmax", by_type["softmax"][0]), softmax)
    _assert_attrs(("softmax_grad", by_type["softmax_grad"][0]), softmax)
    add = {"use_mkldnn": ("BOOLEAN", ["false"]), "x_data_format": ("STRING", ['""']),
           "y_data_format": ("STRING", ['""'])}
    for attrs in by_type["elementwise_add"] + by_type["elementwise_add_grad"]:
        _assert_attrs(("elementwise_add", attrs), add)
    # the layers' use_cudnn=True reaches conv2d and pool2d, and their grads
    pool = {"is_test": ("BOOLEAN", ["false"]), "use_cudnn": ("BOOLEAN", ["true"]),
            "use_mkldnn": ("BOOLEAN", ["false"]), "use_quantizer": ("BOOLEAN", ["false"])}
    _assert_attrs(("pool2d", by_type["pool2d"][0]), pool)
    _assert_attrs(("pool2d_grad", by_type["pool2d_grad"][0]), pool)
    conv = {"use_cudnn": ("BOOLEAN", ["true"]), "workspace_size_MB": ("INT", ["512"]),
            "fuse_brelu_threshold": ("FLOAT", ["6.0"]), "Scale_weights": ("FLOATS", ["1.0"])}
    _assert_attrs(("conv2d", by_type["conv2d"][0]), conv)
    _assert_attrs(("conv2d_grad", by_type["conv2d_grad"][0]), conv)
    # cross_entropy2's grad op is Paddle's cross_entropy_grad2
    assert "cross_entropy_grad2" in by_type and "cross_entropy2_grad" not in by_type
    # each parameter's update in its own name scope /optimizer/, /optimizer_1/, ...
    adams = by_type["adam"]
    assert len(adams) == 4
    for attrs in adams:
        assert attrs["min_row_size_to_use_multithread"] == ("LONG", ["1000"])
        assert re.fullmatch(r'"/optimizer(_\d+)?/"', attrs["op_namescope"][1][0])
    assert len({attrs["op_namescope"][1][0] for attrs in adams}) == 4


def test_3_op_descs_hold_only_the_attributes_refimpl_declares():
    # 3.3.1's softmax / elementwise_add descs hold none of 1.8.5's extra attributes
    with versions.use("3"):
        ops = dict(_ops(_conv_softmax_adam_program().to_string(True)))
    assert "use_mkldnn" not in ops["softmax"] and "data_format" not in ops["softmax"]
    assert "x_data_format" not in ops["elementwise_add_grad"]
    assert ops["adam"]["min_row_size_to_use_multithread"] == ("LONG", ["1000"])


def test_fill_constant_sets_the_value_text_the_kernel_reads():
    # Paddle 1.8.5 (and 3.3.1): str_value '0.1', '2', '1e+20', '1.0' (bool True),
    # '1152921504606846977'; the kernel reads an integer output's text exactly
    main = fluid.Program()
    cases = [("float32", 0.1, '"0.1"'), ("int64", 2, '"2"'), ("float32", 1e20, '"1e+20"'),
             ("bool", True, '"1.0"'), ("int64", 2 ** 60 + 1, '"1152921504606846977"')]
    with fluid.program_guard(main, fluid.Program()):
        outs = [fluid.layers.fill_constant([1], dtype, value) for dtype, value, _ in cases]
    ops = _ops(main.to_string(True))
    assert [attrs["str_value"] for _, attrs in ops] == [("STRING", [text])
                                                        for _, _, text in cases]
    got = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=outs)
    assert int(got[4][0]) == 2 ** 60 + 1
    assert got[0][0] == np.float32(0.1) and got[3][0] is np.True_


# -- programs as Paddle 1.8.5 builds them: slots, variables, regularization, clipping; the
# expected texts measured on 1.8.5 with the same programs (specs/program.md)


def _op_slots(text, block=0):
    """[(op type, {input slot: names}, {output slot: names}, [attr names])] of a block, in
    the text's order."""
    body = text.split("blocks {\n")[block + 1]
    found = []
    for op in re.findall(r"\n  ops \{\n(.*?)\n  \}", "\n" + body, re.S):
        slots = {}
        for key in ("inputs", "outputs"):
            slots[key] = [(slot, re.findall(r'arguments: "(.*)"', args)) for slot, args in
                          re.findall(r'\n    %s \{\n      parameter: "(.*?)"\n(.*?)    \}'
                                     % key, "\n" + op + "\n", re.S)]
        found.append((re.search(r'\n    type: "(.*)"', "\n" + op).group(1), slots["inputs"],
                      slots["outputs"], re.findall(r'attrs \{\n      name: "(.*?)"', op)))
    return found


def _var_text(text, name):
    start = text.index('  vars {\n    name: "%s"\n' % name)
    return text[start:text.index("\n  }\n", start) + 5]


def test_desc_slots_and_variables_are_listed_as_paddle_18_lists_them():
    with versions.use("1.8"):
        text = _fc_adam_program().to_string(True)
    ops = _op_slots(text)
    # every input adam's OpProto declares, absent ones empty, each op's slots by name
    assert ops[-1][1] == [("Beta1Pow", ["fc_0.w_0_beta1_pow_acc_0"]), ("Beta1Tensor", []),
                          ("Beta2Pow", ["fc_0.w_0_beta2_pow_acc_0"]), ("Beta2Tensor", []),
                          ("Grad", ["fc_0.w_0@GRAD"]), ("LearningRate", ["learning_rate_0"]),
                          ("Moment1", ["fc_0.w_0_moment1_0"]),
                          ("Moment2", ["fc_0.w_0_moment2_0"]), ("Param", ["fc_0.w_0"])]
    # the grad maker's X@GRAD of the data input x, which wants no gradient: empty
    mul_grad = [op for op in ops if op[0] == "mul_grad"][0]
    assert mul_grad[1] == [("Out@GRAD", ["fc_0.tmp_0@GRAD"]), ("X", ["x"]), ("Y", ["fc_0.w_0"])]
    assert mul_grad[2] == [("X@GRAD", []), ("Y@GRAD", ["fc_0.w_0@GRAD"])]
    # the backward's own loss gradient and mean's grad maker set only these attributes
    fill, mean_grad = ops[5], ops[6]
    assert (fill[0], fill[1], sorted(fill[3])) == (
        "fill_constant", [], ["dtype", "force_cpu", "op_device", "op_role", "shape", "value"])
    assert (mean_grad[0], sorted(mean_grad[3])) == ("mean_grad", ["op_device", "op_role"])
    assert text.endswith("}\nversion {\n  version: 1008005\n}\n")
    # a parameter holds no lod_level, a gradient no persistable, a data variable both
    assert _var_text(text, "fc_0.w_0") == (
        '  vars {\n    name: "fc_0.w_0"\n    type {\n      type: LOD_TENSOR\n'
        '      lod_tensor {\n        tensor {\n          data_type: FP32\n'
        '          dims: 4\n          dims: 3\n        }\n      }\n    }\n'
        '    persistable: true\n  }\n')
    assert "persistable" not in _var_text(text, "fc_0.w_0@GRAD")
    assert "lod_level" not in _var_text(text, "learning_rate_0")
    assert "lod_level: 0" in _var_text(text, "x") and \
        "persistable: false" in _var_text(text, "x")
    # an op's output holds a lod_level where 1.8.5's kernel shares a LoD at build time:
    # mul and elementwise_add_grad's do, mean's and mul_grad's do not
    assert "lod_level: 0" in _var_text(text, "fc_0.tmp_0")
    assert "lod_level: 0" in _var_text(text, "fc_0.b_0@GRAD")
    assert "lod_level" not in _var_text(text, "mean_0.tmp_0")
    assert "lod_level" not in _var_text(text, "fc_0.w_0@GRAD")


def test_a_variable_declared_without_persistable_holds_none():
    # 1.8.5: block.create_var(name, shape, dtype) leaves persistable unset in the desc; a
    # layer's output (create_variable_for_type_inference) holds persistable: false
    main = fluid.Program()
    with versions.use("1.8"), fluid.program_guard(main, fluid.Program()):
        block = main.global_block()
        x = block.create_var(name="X", shape=[1000, 784], dtype="float32")
        y = block.create_var(name="Y", shape=[784, 100], dtype="float32")
        out = block.create_var(name="Out", dtype="float32")
        block.append_op(type="mul", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]})
        scaled = fluid.layers.scale(out, 2.0)
        text = main.to_string(True)
        restored = fluid.Program.parse_from_string(main.desc.serialize_to_string())
        assert restored.to_string(True) == text
    assert "persistable" not in _var_text(text, "X")
    assert "persistable" not in _var_text(text, "Out")
    assert "persistable: false" in _var_text(text, scaled.name)


def _text_model():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        words = fluid.data(name="words", shape=[None, 1], dtype="int64", lod_level=1)
        label = fluid.data(name="label", shape=[None, 1], dtype="int64")
        emb = fluid.layers.embedding(input=words, size=[100, 16])
        hidden, _ = fluid.layers.dynamic_lstm(input=fluid.layers.fc(emb, size=32), size=32)
        pred = fluid.layers.fc(fluid.layers.sequence_pool(hidden, "max"), 2, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return main, startup, loss


def test_lstm_binds_paddle_intermediates_its_grad_op_lists_the_makers_slots():
    # Paddle 1.8.5's lstm kernel requires BatchGate / BatchCellPreAct: without them it could
    # not run the program refimpl writes; its grad op lists C0, H0 and their gradients empty
    with versions.use("1.8"):
        main, _, _ = _text_model()
        text = main.to_string(True)
        restored = fluid.Program.parse_from_string(main.desc.serialize_to_string())
        assert restored.to_string(True) == text
    ops = {op[0]: op for op in _op_slots(text)}
    assert ops["lstm"][2] == [("BatchCellPreAct", ["lstm_0.tmp_3"]),
                              ("BatchGate", ["lstm_0.tmp_2"]), ("Cell", ["lstm_0.tmp_1"]),
                              ("Hidden", ["lstm_0.tmp_0"])]
    assert ops["lstm_grad"][1] == [
        ("BatchCellPreAct", ["lstm_0.tmp_3"]), ("BatchGate", ["lstm_0.tmp_2"]),
        ("Bias", ["lstm_0.b_0"]), ("C0", []), ("Cell", ["lstm_0.tmp_1"]), ("H0", []),
        ("Hidden", ["lstm_0.tmp_0"]), ("Hidden@GRAD", ["lstm_0.tmp_0@GRAD"]),
        ("Input", ["fc_0.tmp_1"]), ("Weight", ["lstm_0.w_0"])]
    assert ops["lstm_grad"][2] == [("Bias@GRAD", ["lstm_0.b_0@GRAD"]), ("C0@GRAD", []),
                                   ("H0@GRAD", []), ("Input@GRAD", ["fc_0.tmp_1@GRAD"]),
                                   ("Weight@GRAD", ["lstm_0.w_0@GRAD"])]


def test_the_program_still_trains_with_the_intermediates_bound():
    with versions.use("1.8"):
        main, startup, loss = _text_model()
        exe = fluid.Executor(fluid.CPUPlace())
        scope = fluid.Scope()
        rng = np.random.RandomState(0)
        words = fluid.create_lod_tensor(rng.randint(0, 100, (7, 1)).astype("int64"),
                                        [[3, 4]], fluid.CPUPlace())
        feed = {"words": words, "label": np.array([[0], [1]], "int64")}
        with fluid.scope_guard(scope):
            exe.run(startup)
            losses = [float(exe.run(main, feed=feed, fetch_list=[loss])[0][0])
                      for _ in range(5)]
    assert losses[-1] < losses[0]


def _conv_momentum_program(clip=None):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        img = fluid.data(name="img", shape=[None, 1, 12, 12], dtype="float32")
        label = fluid.data(name="label", shape=[None, 1], dtype="int64")
        conv = fluid.layers.conv2d(img, num_filters=4, filter_size=3, act="relu")
        dropped = fluid.layers.dropout(fluid.layers.batch_norm(conv), dropout_prob=0.3)
        pool = fluid.layers.pool2d(dropped, pool_size=2, pool_stride=2, pool_type="avg")
        pred = fluid.layers.fc(pool, size=3, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        test = main.clone(for_test=True)
        fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9,
                                 regularization=fluid.regularizer.L2Decay(1e-4),
                                 grad_clip=clip).minimize(loss)
    return main, startup, test


def test_conv_net_clone_and_regularized_momentum_as_paddle_18_builds_them():
    with versions.use("1.8"):
        main, startup, test = _conv_momentum_program()
        text, test_text = main.to_string(True), test.to_string(True)
        startup_ops = _op_slots(startup.to_string(True))
    assert [op[0] for op in _op_slots(test_text)] == [
        "conv2d", "elementwise_add", "relu", "batch_norm", "dropout", "pool2d", "mul",
        "elementwise_add", "softmax", "cross_entropy2", "mean"]
    ops = _op_slots(text)
    by_type = {}
    for op in ops:
        by_type.setdefault(op[0], []).append(op)
    # cross_entropy2's XShape: X's dims and a 0 (1.8.5: -1, 3, 0)
    assert "          dims: -1\n          dims: 3\n          dims: 0\n" in \
        _var_text(text, "cross_entropy2_0.tmp_1")
    # conv2d's use_cudnn reaches its activation; dropout takes one dropout_N name
    assert dict(_ops(text))["relu"]["use_cudnn"] == ("BOOLEAN", ["true"])
    assert by_type["dropout"][0][2] == [("Mask", ["dropout_0.tmp_1"]),
                                        ("Out", ["dropout_0.tmp_0"])]
    # conv2d's grad maker lists Bias; the last parameter made comes first in op_role_var
    assert by_type["conv2d_grad"][0][1][0] == ("Bias", []) and \
        by_type["conv2d_grad"][0][2] == [("Bias@GRAD", []),
                                         ("Filter@GRAD", ["conv2d_0.w_0@GRAD"]),
                                         ("Input@GRAD", [])]
    assert dict(_ops(text))["batch_norm_grad"]["op_role_var"] == ("STRINGS", [
        '"batch_norm_0.b_0"', '"batch_norm_0.b_0@GRAD"', '"batch_norm_0.w_0"',
        '"batch_norm_0.w_0@GRAD"'])
    # L2Decay: scale into an unnamed variable, summed into the gradient in place
    first = ops.index(by_type["scale"][0])
    assert [op[:3] for op in ops[first:first + 2]] == [
        ("scale", [("ScaleTensor", []), ("X", ["batch_norm_0.b_0"])],
         [("Out", ["_generated_var_0"])]),
        ("sum", [("X", ["batch_norm_0.b_0@GRAD", "_generated_var_0"])],
         [("Out", ["batch_norm_0.b_0@GRAD"])])]
    # (name scopes count for the process, as Paddle's: /regularization_1/ the second time)
    namescope = _ops(text)[first][1]["op_namescope"][1][0]
    assert re.fullmatch(r'"/regularization(_\d+)?/"', namescope)
    assert by_type["momentum"][0][1][0] == ("Grad", ["batch_norm_0.b_0@GRAD"])
    # 1.8.5's momentum declares no regularization_coeff / regularization_method (2.x's)
    assert "regularization_coeff" not in by_type["momentum"][0][3] and \
        "mu" in by_type["momentum"][0][3]
    # the initializers: a constant's fill_constant lists no inputs, uniform_random its own
    assert [op[1] for op in startup_ops if op[0] == "fill_constant"][0] == []
    assert [op[1] for op in startup_ops if op[0] == "uniform_random"][0] == [
        ("ShapeTensor", []), ("ShapeTensorList", [])]


def test_global_norm_clip_and_regularization_are_built_as_1_8_5_builds_them():
    main, startup = fluid.Program(), fluid.Program()
    with versions.use("1.8"), fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4], "float32")
        loss = fluid.layers.mean(fluid.layers.fc(x, 3))
        fluid.optimizer.SGD(0.01, grad_clip=fluid.clip.GradientClipByGlobalNorm(1.0)) \
            .minimize(loss)
        ops = _op_slots(main.to_string(True))
        clip = [op for op in ops if op[0] not in ("mul", "elementwise_add", "mean", "sgd")
                and not op[0].endswith("_grad") and op[0] != "fill_constant" or
                op[2] == [("Out", ["fill_constant_0.tmp_0"])]]
        assert [(op[0], op[2][0][1][0]) for op in clip] == [
            ("square", "square_0.tmp_0"), ("reduce_sum", "reduce_sum_0.tmp_0"),
            ("square", "square_1.tmp_0"), ("reduce_sum", "reduce_sum_1.tmp_0"),
            ("sum", "sum_0.tmp_0"), ("sqrt", "sqrt_0.tmp_0"),
            ("fill_constant", "fill_constant_0.tmp_0"),
            ("elementwise_max", "elementwise_max_0.tmp_0"),
            ("elementwise_div", "elementwise_div_0.tmp_0"),
            ("elementwise_mul", "elementwise_mul_0.tmp_0"),
            ("elementwise_mul", "elementwise_mul_1.tmp_0")]
        assert clip[7][1] == [("X", ["fill_constant_0.tmp_0"]), ("Y", ["sqrt_0.tmp_0"])]
        attrs = [a for t, a in _ops(main.to_string(True)) if t == "square"]
        assert attrs[0]["op_role_var"] == ("STRINGS", ['"fc_0.b_0"',
                                                       '"elementwise_mul_0.tmp_0"'])
        assert re.fullmatch(r'"/gradient_clip(_\d+)?/"', attrs[0]["op_namescope"][1][0])
        # the clipped gradients: each raw one times 1 / max(1, global norm)
        exe = fluid.Executor(fluid.CPUPlace())
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup)
            got = exe.run(main, feed={"x": np.arange(8, dtype="float32").reshape(2, 4)},
                          fetch_list=["fc_0.b_0@GRAD", "fc_0.w_0@GRAD",
                                      "elementwise_mul_0.tmp_0", "elementwise_mul_1.tmp_0"])
    norm = np.sqrt(sum(float((g.astype("float64") ** 2).sum()) for g in got[:2]))
    assert norm > 1
    for raw, clipped in zip(got[:2], got[2:]):
        np.testing.assert_allclose(clipped, raw / norm, rtol=1e-6)


def test_startup_and_operator_ops_as_paddle_18_builds_them():
    main, startup = fluid.Program(), fluid.Program()
    with versions.use("1.8"), fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4], "float32")
        s = fluid.layers.reduce_sum(x)
        flag = s > 0
        fluid.optimizer.Adam(0.01).minimize(fluid.layers.mean(fluid.layers.fc(x, 3)))
        main_ops, startup_text = _op_slots(main.to_string(True)), startup.to_string(True)
    # a Variable's operator: its constant's fill_constant (no inputs) and result are tmp_N
    assert [op[:3] for op in main_ops[1:3]] == [
        ("fill_constant", [], [("Out", ["tmp_0"])]),
        ("greater_than", [("X", ["reduce_sum_0.tmp_0"]), ("Y", ["tmp_0"])],
         [("Out", ["tmp_1"])])]
    assert flag.name == "tmp_1"
    # Adam's beta power accumulators start on the CPU
    devices = {op[2][0][1][0]: attrs["op_device"] for op, (_, attrs) in
               zip(_op_slots(startup_text), _ops(startup_text)) if op[0] == "fill_constant"}
    assert devices["fc_0.w_0_beta1_pow_acc_0"] == ("STRING", ['"cpu"'])
    assert devices["fc_0.w_0_moment1_0"] == ("STRING", ['""'])


def test_while_program_as_paddle_18_builds_it():
    main = fluid.Program()
    with versions.use("1.8"), fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        x.stop_gradient = False     # (else, as in 1.8.5, no gradient reaches the loop)
        i = fluid.layers.fill_constant(shape=[1], dtype="int64", value=0)
        three = fluid.layers.fill_constant(shape=[1], dtype="int64", value=3)
        _, h = fluid.layers.while_loop(
            lambda i, h: fluid.layers.less_than(i, three),
            lambda i, h: [fluid.layers.increment(i), fluid.layers.fc(h, 3, act="tanh")],
            [i, x])
        fluid.backward.append_backward(fluid.layers.mean(h))
        text = main.to_string(True)
        restored = fluid.Program.parse_from_string(main.desc.serialize_to_string())
        assert restored.to_string(True) == text
    attrs = dict(_ops(text))
    # 1.8.5's while holds skip_eager_deletion_vars; refimpl's loop guard max_steps is not
    # written while it holds its default
    assert attrs["while"]["skip_eager_deletion_vars"] == ("STRINGS", [])
    assert "max_steps" not in attrs["while"]
    assert [op[2][-1] for op in _op_slots(text) if op[0] == "while"] == [
        ("StepScopes", ["_generated_var_0"])]
    # op_role_var on the global block's while_grad only, not on the body's grad ops
    assert attrs["while_grad"]["op_role_var"] == ("STRINGS", [
        '"fc_0.b_0"', '"fc_0.b_0@GRAD"', '"fc_0.w_0"', '"fc_0.w_0@GRAD"'])
    body_grads = [a for t, a in _ops(text.split("blocks {\n", 3)[3]) if t == "mul_grad"]
    assert body_grads and body_grads[0]["op_role_var"] == ("STRINGS", [])
