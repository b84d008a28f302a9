"""Fluid book NLP programs on small generated data with fixed initial parameters: their
loss curves against Paddle 1.8.5's. The same programs and data ran under Paddle 1.8.5
(CPU, Python 3.8); only its losses are kept here, rounded to 6 digits."""
import numpy as np

from refimpl import fluid

PLACE = fluid.CPUPlace()


def _fixed(init):
    """ParamAttr(name) that initializes parameter `name` to init[name] (float32)."""
    return lambda name: fluid.ParamAttr(name=name, initializer=fluid.initializer.
                                        NumpyArrayInitializer(init[name].astype("float32")))


def _train(main, startup, feeds, loss):
    exe = fluid.Executor(PLACE)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        return [float(np.array(exe.run(main, feed=f, fetch_list=[loss])[0]).reshape(-1)[0])
                for f in feeds]


def test_understand_sentiment_conv_net_follows_paddle():
    dict_size, emb_size, hidden, classes = 30, 8, 6, 2
    rng = np.random.RandomState(0)
    init = {"emb": rng.uniform(-0.5, 0.5, (dict_size, emb_size)),
            "c3w": rng.uniform(-0.3, 0.3, (3 * emb_size, hidden)), "c3b": np.zeros(hidden),
            "c4w": rng.uniform(-0.3, 0.3, (4 * emb_size, hidden)), "c4b": np.zeros(hidden),
            "fcw0": rng.uniform(-0.3, 0.3, (hidden, classes)),
            "fcw1": rng.uniform(-0.3, 0.3, (hidden, classes)), "fcb": np.zeros(classes)}
    attr = _fixed(init)
    batches = []
    for _ in range(6):
        lens = rng.randint(2, 7, size=4).tolist()
        words = rng.randint(0, dict_size, size=(sum(lens), 1))
        label = rng.randint(0, classes, size=(4, 1))
        off = np.cumsum([0] + lens)
        batches.append([(words[off[i]:off[i + 1], 0].tolist(), label[i].tolist())
                        for i in range(4)])
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        data = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(input=data, size=[dict_size, emb_size],
                                     param_attr=attr("emb"))
        convs = [fluid.nets.sequence_conv_pool(input=emb, num_filters=hidden, filter_size=k,
                                               act="tanh", pool_type="sqrt",
                                               param_attr=attr("c%dw" % k),
                                               bias_attr=attr("c%db" % k)) for k in (3, 4)]
        pred = fluid.layers.fc(input=convs, size=classes, act="softmax",
                               param_attr=[attr("fcw0"), attr("fcw1")], bias_attr=attr("fcb"))
        avg = fluid.layers.mean(fluid.layers.cross_entropy(input=pred, label=label))
        fluid.optimizer.Adagrad(learning_rate=0.05).minimize(avg)
    feeder = fluid.DataFeeder(feed_list=[data, label], place=PLACE, program=main)
    losses = _train(main, startup, [feeder.feed(b) for b in batches * 3], avg)
    paddle_1_8_5 = [0.709433, 0.66535, 0.480418, 0.805567, 0.677406, 0.707014, 0.612499,
                    0.414487, 0.225372, 0.580003, 0.402402, 0.467712, 0.428033, 0.333802,
                    0.106996, 0.483496, 0.185069, 0.262311]
    np.testing.assert_allclose(losses, paddle_1_8_5, rtol=2e-5, atol=2e-6)


def test_label_semantic_roles_lstm_crf_follows_paddle():
    words, preds, labels, emb_size, hidden = 20, 5, 4, 6, 4
    rng = np.random.RandomState(1)
    u = rng.uniform
    init = {"wordemb": u(-0.5, 0.5, (words, emb_size)), "predemb": u(-0.5, 0.5, (preds, emb_size)),
            "markemb": u(-0.5, 0.5, (2, emb_size)),
            "m0": u(-0.3, 0.3, (emb_size, 4 * hidden)), "m1": u(-0.3, 0.3, (emb_size, 4 * hidden)),
            "m2": u(-0.3, 0.3, (emb_size, 4 * hidden)), "mb": np.zeros(4 * hidden),
            "lw": u(-0.3, 0.3, (hidden, 4 * hidden)), "lb": u(-0.1, 0.1, (1, 7 * hidden)),
            "rw": u(-0.3, 0.3, (hidden, 4 * hidden)), "rb": u(-0.1, 0.1, (1, 7 * hidden)),
            "o0": u(-0.3, 0.3, (hidden, labels)), "o1": u(-0.3, 0.3, (hidden, labels)),
            "ob": np.zeros(labels), "crf": u(-0.2, 0.2, (labels + 2, labels))}
    attr = _fixed(init)
    feeds = []
    for _ in range(5):
        lens = rng.randint(1, 6, size=3).tolist()
        n = sum(lens)
        columns = dict(word=rng.randint(0, words, (n, 1)), pred=rng.randint(0, preds, (n, 1)),
                       mark=rng.randint(0, 2, (n, 1)), target=rng.randint(0, labels, (n, 1)))
        feeds.append({k: fluid.create_lod_tensor(v.astype("int64"), [lens], PLACE)
                      for k, v in columns.items()})
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        word, pred, mark, target = (fluid.data(name, [-1, 1], "int64", lod_level=1)
                                    for name in ("word", "pred", "mark", "target"))
        embs = [fluid.layers.embedding(word, [words, emb_size], param_attr=attr("wordemb")),
                fluid.layers.embedding(pred, [preds, emb_size], param_attr=attr("predemb")),
                fluid.layers.embedding(mark, [2, emb_size], param_attr=attr("markemb"))]
        mix = fluid.layers.fc(embs, 4 * hidden, param_attr=[attr("m0"), attr("m1"), attr("m2")],
                              bias_attr=attr("mb"))
        fwd, _ = fluid.layers.dynamic_lstm(mix, 4 * hidden, param_attr=attr("lw"),
                                           bias_attr=attr("lb"))
        rev, _ = fluid.layers.dynamic_lstm(mix, 4 * hidden, param_attr=attr("rw"),
                                           bias_attr=attr("rb"), is_reverse=True)
        feature = fluid.layers.fc([fwd, rev], labels, param_attr=[attr("o0"), attr("o1")],
                                  bias_attr=attr("ob"))
        cost = fluid.layers.linear_chain_crf(feature, target, param_attr=attr("crf"))
        avg = fluid.layers.mean(cost)
        fluid.optimizer.SGD(learning_rate=0.1).minimize(avg)
    losses = _train(main, startup, feeds * 3, avg)
    paddle_1_8_5 = [4.180744, 4.632775, 3.878851, 4.502432, 3.559945, 4.09154, 4.561949,
                    3.838758, 4.399228, 3.452959, 4.034504, 4.542538, 3.798544, 4.341076,
                    3.380607]
    np.testing.assert_allclose(losses, paddle_1_8_5, rtol=2e-5, atol=2e-6)
