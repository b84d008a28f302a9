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


def test_word2vec_ngram_follows_paddle():
    """imikolov 5-grams: four shared-table sparse embeddings, concat, fc sigmoid, softmax
    over the dictionary; Adagrad with L2 decay."""
    dict_size, emb, hidden = 40, 8, 16
    rng = np.random.RandomState(2)
    init = {"shared_w": rng.uniform(-0.5, 0.5, (dict_size, emb)),
            "h_w": rng.uniform(-0.2, 0.2, (4 * emb, hidden)), "h_b": np.zeros(hidden),
            "p_w": rng.uniform(-0.2, 0.2, (hidden, dict_size)), "p_b": np.zeros(dict_size)}
    attr = _fixed(init)
    # imikolov's N-gram reader yields 5-tuples of word ids
    batches = [[tuple(int(w) for w in rng.randint(0, dict_size, 5)) for _ in range(8)]
               for _ in range(6)]
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        words = [fluid.data(name, [None, 1], "int64")
                 for name in ("firstw", "secondw", "thirdw", "forthw", "nextw")]
        embeds = [fluid.layers.embedding(input=w, size=[dict_size, emb], dtype="float32",
                                         is_sparse=True, param_attr=attr("shared_w"))
                  for w in words[:4]]
        hidden1 = fluid.layers.fc(input=fluid.layers.concat(input=embeds, axis=1),
                                  size=hidden, act="sigmoid", param_attr=attr("h_w"),
                                  bias_attr=attr("h_b"))
        predict = fluid.layers.fc(input=hidden1, size=dict_size, act="softmax",
                                  param_attr=attr("p_w"), bias_attr=attr("p_b"))
        avg = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=words[4]))
        fluid.optimizer.AdagradOptimizer(
            learning_rate=0.3,
            regularization=fluid.regularizer.L2DecayRegularizer(8e-4)).minimize(avg)
    feeder = fluid.DataFeeder(feed_list=words, place=PLACE, program=main)
    losses = _train(main, startup, [feeder.feed(b) for b in batches * 3], avg)
    paddle_1_8_5 = [3.713405, 7.465347, 3.751963, 4.365088, 4.066083, 4.395929, 3.499138,
                    3.547776, 3.204093, 3.49617, 3.394252, 3.708144, 3.172732, 3.391104,
                    2.616371, 3.432227, 3.255492, 3.597798]
    np.testing.assert_allclose(losses, paddle_1_8_5, rtol=2e-5, atol=2e-6)


def test_recommender_system_movielens_follows_paddle():
    """movielens records: user and movie towers (embeddings + fc; the movie's categories
    summed by sequence_pool and its title through sequence_conv_pool, both LoD), cos_sim
    scaled to 5, square error; SGD."""
    users, ages, jobs, movies, categories, titles = 10, 7, 5, 12, 6, 25
    e, h, f = 6, 10, 4
    rng = np.random.RandomState(3)
    u = rng.uniform
    init = {"user_table": u(-.5, .5, (users, e)), "gender_table": u(-.5, .5, (2, e)),
            "age_table": u(-.5, .5, (ages, e)), "job_table": u(-.5, .5, (jobs, e)),
            "movie_table": u(-.5, .5, (movies, e)),
            "category_table": u(-.5, .5, (categories, e)),
            "title_table": u(-.5, .5, (titles, e)), "conv_w": u(-.3, .3, (3 * e, f)),
            "conv_b": np.zeros(f)}
    for name in ("usr", "gender", "age", "job", "mov"):
        init[name + "_w"], init[name + "_b"] = u(-.4, .4, (e, e)), np.zeros(e)
    init["usr_all_w"], init["usr_all_b"] = u(-.3, .3, (4 * e, h)), np.zeros(h)
    init["mov_all_w"], init["mov_all_b"] = u(-.3, .3, (2 * e + f, h)), np.zeros(h)
    attr = _fixed(init)

    def record():
        """movielens' reader: [user_id, gender_id, age_id, job_id, movie_id, category_ids,
        title_ids, [score]]"""
        return [int(rng.randint(users)), int(rng.randint(2)), int(rng.randint(ages)),
                int(rng.randint(jobs)), int(rng.randint(movies)),
                rng.randint(0, categories, rng.randint(1, 4)).tolist(),
                rng.randint(0, titles, rng.randint(1, 6)).tolist(), [float(rng.randint(1, 6))]]

    batches = [[record() for _ in range(6)] for _ in range(5)]
    layers = fluid.layers
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        def embedded(name, size, table, lod_level=0):
            ids = fluid.data(name, [None, 1], "int64", lod_level=lod_level)
            return ids, layers.embedding(ids, size=[size, e], param_attr=attr(table))

        feeds, usr_parts = [], []
        for name, size, part in (("user_id", users, "usr"), ("gender_id", 2, "gender"),
                                 ("age_id", ages, "age"), ("job_id", jobs, "job")):
            ids, emb = embedded(name, size, name.replace("_id", "_table"))
            feeds.append(ids)
            usr_parts.append(layers.fc(emb, e, param_attr=attr(part + "_w"),
                                       bias_attr=attr(part + "_b")))
        usr = layers.fc(layers.concat(usr_parts, axis=1), h, act="tanh",
                        param_attr=attr("usr_all_w"), bias_attr=attr("usr_all_b"))
        mov_id, mov_emb = embedded("movie_id", movies, "movie_table")
        mov_fc = layers.fc(mov_emb, e, param_attr=attr("mov_w"), bias_attr=attr("mov_b"))
        cat_id, cat_emb = embedded("category_id", categories, "category_table", lod_level=1)
        title_id, title_emb = embedded("movie_title", titles, "title_table", lod_level=1)
        title_conv = fluid.nets.sequence_conv_pool(title_emb, num_filters=f, filter_size=3,
                                                   act="tanh", pool_type="sum",
                                                   param_attr=attr("conv_w"),
                                                   bias_attr=attr("conv_b"))
        mov = layers.fc(layers.concat([mov_fc, layers.sequence_pool(cat_emb, "sum"),
                                       title_conv], axis=1), h, act="tanh",
                        param_attr=attr("mov_all_w"), bias_attr=attr("mov_all_b"))
        score = fluid.data("score", [None, 1], "float32")
        infer = layers.scale(layers.cos_sim(X=usr, Y=mov), scale=5.0)
        avg = layers.mean(layers.square_error_cost(input=infer, label=score))
        fluid.optimizer.SGD(learning_rate=0.2).minimize(avg)
    feeder = fluid.DataFeeder(feed_list=feeds + [mov_id, cat_id, title_id, score],
                              place=PLACE, program=main)
    losses = _train(main, startup, [feeder.feed(b) for b in batches * 3], avg)
    paddle_1_8_5 = [16.819921, 8.698587, 5.715422, 2.423273, 4.196951, 3.766885, 4.275021,
                    1.836433, 1.833188, 1.498912, 1.849986, 2.519152, 1.836416, 1.833294,
                    1.498807]
    # float32 sums in another order: the curve drifts by up to 3e-5 relative
    np.testing.assert_allclose(losses, paddle_1_8_5, rtol=5e-5, atol=2e-6)


def test_machine_translation_dynamic_rnn_and_lod_beam_search_follow_paddle():
    """wmt14 pairs: LSTM encoder, DynamicRNN decoder (no max_len: the steps run in a while
    op) trained with Adagrad; then the book's While decoder with LoD beam_search and
    beam_search_decode on the trained parameters: Paddle 1.8.5's losses, translations
    (ids, scores and their 2-level LoD)."""
    dict_size, word_dim, hidden, beam, max_len, end_id = 12, 6, 4, 2, 4, 1
    rng = np.random.RandomState(4)
    u = rng.uniform
    init = {"vemb": u(-.5, .5, (dict_size, word_dim)),
            "enc_w": u(-.4, .4, (word_dim, 4 * hidden)), "enc_b": np.zeros(4 * hidden),
            "lstm_w": u(-.4, .4, (hidden, 4 * hidden)), "lstm_b": u(-.1, .1, (1, 7 * hidden)),
            "dec_w0": u(-.4, .4, (word_dim, hidden)), "dec_w1": u(-.4, .4, (hidden, hidden)),
            "dec_b": np.zeros(hidden), "out_w": u(-.4, .4, (hidden, dict_size)),
            "out_b": np.zeros(dict_size)}
    attr = _fixed(init)
    pd = fluid.layers

    def encoder():
        src = pd.data(name="src_word_id", shape=[1], dtype="int64", lod_level=1)
        emb = pd.embedding(input=src, size=[dict_size, word_dim], param_attr=attr("vemb"))
        fc1 = pd.fc(input=emb, size=hidden * 4, act="tanh", param_attr=attr("enc_w"),
                    bias_attr=attr("enc_b"))
        lstm_hidden, _ = pd.dynamic_lstm(input=fc1, size=hidden * 4,
                                         param_attr=attr("lstm_w"), bias_attr=attr("lstm_b"))
        return pd.sequence_last_step(input=lstm_hidden)

    def decoder_step(word_emb, pre_state):
        state = pd.fc(input=[pre_state, word_emb], size=hidden, act="tanh",
                      param_attr=[attr("dec_w1"), attr("dec_w0")], bias_attr=attr("dec_b"))
        return state

    def scores(state):
        return pd.fc(input=state, size=dict_size, act="softmax", param_attr=attr("out_w"),
                     bias_attr=attr("out_b"))

    def decoder_train(context):
        trg = pd.data(name="target_language_word", shape=[1], dtype="int64", lod_level=1)
        trg_emb = pd.embedding(input=trg, size=[dict_size, word_dim], param_attr=attr("vemb"))
        rnn = pd.DynamicRNN()
        with rnn.block():
            word = rnn.step_input(trg_emb)
            pre_state = rnn.memory(init=context)
            state = decoder_step(word, pre_state)
            rnn.update_memory(pre_state, state)
            rnn.output(scores(state))
        return rnn()

    def decoder_decode(context):
        array_len = pd.fill_constant(shape=[1], dtype="int64", value=max_len)
        counter = pd.zeros(shape=[1], dtype="int64", force_cpu=True)
        state_array, ids_array = pd.create_array("float32"), pd.create_array("int64")
        scores_array = pd.create_array("float32")
        init_ids = pd.data(name="init_ids", shape=[1], dtype="int64", lod_level=2)
        init_scores = pd.data(name="init_scores", shape=[1], dtype="float32", lod_level=2)
        for value, array in ((context, state_array), (init_ids, ids_array),
                             (init_scores, scores_array)):
            pd.array_write(value, array=array, i=counter)
        cond = pd.less_than(x=counter, y=array_len)
        while_op = pd.While(cond=cond)
        with while_op.block():
            pre_ids = pd.array_read(array=ids_array, i=counter)
            pre_state = pd.array_read(array=state_array, i=counter)
            pre_score = pd.array_read(array=scores_array, i=counter)
            pre_state_expanded = pd.sequence_expand(pre_state, pre_score)
            pre_ids_emb = pd.embedding(input=pre_ids, size=[dict_size, word_dim],
                                       param_attr=attr("vemb"))
            state = decoder_step(pre_ids_emb, pre_state_expanded)
            score = scores(pd.lod_reset(x=state, y=pre_score))
            topk_scores, topk_indices = pd.topk(score, k=beam)
            accu_scores = pd.elementwise_add(x=pd.log(topk_scores),
                                             y=pd.reshape(pre_score, shape=[-1]), axis=0)
            selected_ids, selected_scores = pd.beam_search(
                pre_ids, pre_score, topk_indices, accu_scores, beam, end_id=end_id, level=0)
            pd.increment(x=counter, value=1, in_place=True)
            for value, array in ((state, state_array), (selected_ids, ids_array),
                                 (selected_scores, scores_array)):
                pd.array_write(value, array=array, i=counter)
            length_cond = pd.less_than(x=counter, y=array_len)
            finish_cond = pd.logical_not(pd.is_empty(x=selected_ids))
            pd.logical_and(x=length_cond, y=finish_cond, out=cond)
        return pd.beam_search_decode(ids=ids_array, scores=scores_array, beam_size=beam,
                                     end_id=end_id)

    def pairs(n):
        """wmt14's reader: (source ids, <s> + target ids, target ids + <e>)"""
        out = []
        for _ in range(n):
            src = rng.randint(2, dict_size, rng.randint(2, 5)).tolist()
            trg = rng.randint(2, dict_size, rng.randint(1, 4)).tolist()
            out.append((src, [0] + trg, trg + [end_id]))
        return out

    batches = [pairs(3) for _ in range(4)]
    train, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(train, startup):
        rnn_out = decoder_train(encoder())
        label = pd.data(name="target_language_next_word", shape=[1], dtype="int64",
                        lod_level=1)
        avg = pd.mean(pd.cross_entropy(input=rnn_out, label=label))
        fluid.optimizer.Adagrad(learning_rate=0.2).minimize(avg)
        feeder = fluid.DataFeeder(
            feed_list=[train.global_block().var(n) for n in
                       ("src_word_id", "target_language_word", "target_language_next_word")],
            place=PLACE, program=train)
    infer, infer_startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(infer, infer_startup):
        sentence_ids, sentence_scores = decoder_decode(encoder())
    exe = fluid.Executor(PLACE)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        losses = [float(np.array(exe.run(train, feed=feeder.feed(b),
                                         fetch_list=[avg])[0]).reshape(-1)[0])
                  for b in batches * 3]
        feed = {"src_word_id": fluid.create_lod_tensor(
                    np.array([[3], [5], [7], [2], [9]], "int64"), [[3, 2]], PLACE),
                "init_ids": fluid.create_lod_tensor(np.zeros((2, 1), "int64"),
                                                    [[1, 1], [1, 1]], PLACE),
                "init_scores": fluid.create_lod_tensor(np.ones((2, 1), "float32"),
                                                       [[1, 1], [1, 1]], PLACE)}
        ids, found = exe.run(infer, feed=feed, fetch_list=[sentence_ids, sentence_scores],
                             return_numpy=False)
    paddle_1_8_5 = [2.495684, 2.525356, 2.28098, 2.184795, 1.901053, 1.931793, 1.786688,
                    1.875756, 2.054474, 1.823845, 1.728441, 1.689547]
    np.testing.assert_allclose(losses, paddle_1_8_5, rtol=2e-5, atol=2e-6)
    # Paddle 1.8.5: two sources, two sentences each ("<s> <e>", "<s> 9 <e>", ...)
    assert np.array(ids).reshape(-1).tolist() == [0, 1, 0, 9, 1, 0, 1, 0, 9, 1]
    assert ids.recursive_sequence_lengths() == found.recursive_sequence_lengths() == \
        [[2, 2], [2, 3, 2, 3]]
    np.testing.assert_allclose(
        np.array(found).reshape(-1), [1.0, -0.846824, 1.0, -0.809107, -1.649711, 1.0,
                                      -0.741951, 1.0, -0.806833, -1.624943], atol=2e-6)
