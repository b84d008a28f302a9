"""PaddleNLP 2.0's models outside its example scripts (tests/test_paddlenlp20.py,
specs/models20.md), with the paddlenlp package on PYTHONPATH:

  tiny-bert OUT VOCAB [ernie]
                        a 'pretrained' BERT (or ERNIE) directory built from a tiny config
                        with paddlenlp's own classes (random weights, save_pretrained),
                        for run_glue.py --model_name_or_path OUT (refimpl only)
  save DIR BERT         each compared model's initial state (fixed_weights), paddle.save'd
                        in DIR
  losses DIR BERT       the models loaded from DIR (paddle.load): the losses of 5 training
                        steps on fixed batches (dropout 0 / eval mode), printed as JSON

`save` and `tiny-bert` run under `python -m refimpl run`; `losses` runs there and under Paddle
3.3.1 (`/opt/paddle311/bin/python`, with jieba / six / requests / colorlog / colorama on its
path), where the 2.0 module paths paddlenlp imports are lent the 3.x objects below."""
import importlib
import json
import os
import sys
import types

import numpy as np
import paddle

if not hasattr(paddle, "fluid"):    # Paddle 3.x: the 2.0 module paths paddlenlp imports
    fluid = types.ModuleType("paddle.fluid")
    for name, attrs in (
            ("layers", {}), ("layers.utils", {"map_structure": paddle.utils.map_structure}),
            ("framework", {"ParamBase": paddle.base.framework.EagerParamBase}),
            ("dygraph", {}), ("dygraph.parallel", {"ParallelEnv": paddle.distributed.ParallelEnv})):
        module = types.ModuleType("paddle.fluid." + name)
        module.__dict__.update(attrs)
        sys.modules["paddle.fluid." + name] = module
    sys.modules["paddle.fluid"] = fluid
    try:
        importlib.import_module("seqeval.metrics")   # needs scikit-learn, absent from 3.3.1
    except ImportError:           # paddlenlp.metrics imports it; these models never call it
        for name in ("seqeval", "seqeval.metrics", "seqeval.metrics.sequence_labeling"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["seqeval.metrics.sequence_labeling"].get_entities = None

import paddlenlp as ppnlp
from paddlenlp.transformers import (BertForSequenceClassification, BertModel, BertTokenizer,
                                    CrossEntropyCriterion, ErnieModel, ErnieTokenizer,
                                    TransformerModel)

STEPS = 5


def batches(vocab, shape, n, seed):
    rng = np.random.RandomState(seed)
    return [rng.randint(3, vocab, shape).astype("int64") for _ in range(n)]


def senta():
    paddle.seed(3)
    model = ppnlp.models.Senta(network="lstm", vocab_size=40, num_classes=2)
    opt = paddle.optimizer.Adam(learning_rate=5e-3, parameters=model.parameters())
    ce = paddle.nn.CrossEntropyLoss()

    def step(x):
        lens = np.full([x.shape[0]], x.shape[1], "int64")
        lens[::3] = x.shape[1] - 3
        return ce(model(paddle.to_tensor(x), paddle.to_tensor(lens)),
                  paddle.to_tensor((x[:, 0] % 2).astype("int64")))
    return model, opt, step, batches(40, [16, 12], STEPS, 0)


def transformer():
    paddle.seed(4)
    model = TransformerModel(src_vocab_size=30, trg_vocab_size=30, max_length=33, n_layer=2,
                             n_head=2, d_model=32, d_inner_hid=64, dropout=0.0,
                             weight_sharing=True, bos_id=0, eos_id=1)
    sched = paddle.optimizer.lr.NoamDecay(32, 4, 1.0, last_epoch=0)
    opt = paddle.optimizer.Adam(learning_rate=sched, beta1=0.9, beta2=0.997, epsilon=1e-9,
                                parameters=model.parameters())
    crit = CrossEntropyCriterion(0.1, 0)

    def step(x):
        src, trg = x[:, :8], x[:, 8:]
        lbl = np.concatenate([trg[:, 1:], np.ones([x.shape[0], 1], "int64")], 1)[:, :, None]
        trg = np.concatenate([np.zeros([x.shape[0], 1], "int64"), trg[:, 1:]], 1)
        sched.step()
        return crit(model(src_word=paddle.to_tensor(src), trg_word=paddle.to_tensor(trg)),
                    paddle.to_tensor(lbl))[1]
    return model, opt, step, batches(30, [8, 16], STEPS, 1)


def bert(pretrained):
    paddle.seed(5)
    model = BertForSequenceClassification.from_pretrained(pretrained, num_classes=2)
    model.eval()
    opt = paddle.optimizer.AdamW(learning_rate=1e-3, parameters=model.parameters(),
                                 weight_decay=0.01, epsilon=1e-6)
    ce = paddle.nn.CrossEntropyLoss()

    def step(x):
        seg = np.zeros_like(x)
        seg[:, 6:] = 1
        return ce(model(paddle.to_tensor(x), paddle.to_tensor(seg)),
                  paddle.to_tensor((x[:, 1] % 2).astype("int64")))
    return model, opt, step, batches(31, [8, 12], STEPS, 2)


def tiny_bert(out, vocab, kind="bert"):
    model_class, tokenizer_class = {"bert": (BertModel, BertTokenizer),
                                    "ernie": (ErnieModel, ErnieTokenizer)}[kind]
    paddle.seed(7)
    os.makedirs(out, exist_ok=True)
    with open(vocab) as f:
        size = sum(1 for _ in f)
    model = model_class(vocab_size=size, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                        type_vocab_size=2)
    model.save_pretrained(out)
    tokenizer_class(vocab_file=vocab).save_pretrained(out)


def fixed_weights(model):
    """The model's initial state, free of the framework's random streams (the recorded 3.3.1
    losses then do not move when refimpl's initializers draw differently): a trainable
    parameter that is not a constant becomes uniform(-s, s), s = 1 / sqrt(its first dim),
    drawn from a RandomState seeded by its position; the others (LayerNorm's ones, zero
    biases, the Transformer's sinusoid tables) keep their deterministic values."""
    state = {}
    for i, (name, value) in enumerate(model.state_dict().items()):
        array = value.numpy()
        if getattr(value, "trainable", False) and array.min() != array.max():
            array = (np.random.RandomState(i).uniform(-1, 1, array.shape) /
                     np.sqrt(array.shape[0])).astype(array.dtype)
        state[name] = array
    return state


def main(action, folder, pretrained, *kind):
    if action == "tiny-bert":
        return tiny_bert(folder, pretrained, *kind)
    results = {}
    for name, build in (("senta_lstm", senta), ("transformer", transformer),
                        ("bert", lambda: bert(pretrained))):
        model, opt, step, data = build()
        path = os.path.join(folder, name + ".pdparams")
        if action == "save":
            paddle.save(fixed_weights(model), path)
            continue
        model.set_state_dict(paddle.load(path))
        losses = []
        for x in data:
            loss = step(x)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss.numpy().reshape(-1)[0]))
        results[name] = losses
    if action == "losses":
        print(json.dumps(results))


if __name__ == "__main__":
    main(*sys.argv[1:])
