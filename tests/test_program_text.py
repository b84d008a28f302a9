"""Program.to_string / str(program): op attributes typed and printed as Paddle 1.8.5 prints
them (the text below measured on 1.8.5 with the same programs). specs/program.md."""
import re

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
