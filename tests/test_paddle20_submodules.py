"""Paddle 2.0's submodule paths (paddle.nn.functional.common, paddle.nn.layer.conv,
paddle.tensor.math, paddle.optimizer.adam, ...): each imports under the alias, and holds
the same objects as its parent for the names Paddle 2.0's parent takes from it (recorded
from Paddle 2.0's source, release/2.0 2967624b: the names its package __init__ imports from
the submodule, limited to those refimpl's parent has; refimpl/submodules.py)."""
import json
import subprocess
import sys
import textwrap

# {submodule path: the names 2.0's parent re-exports from it}; '' where it re-exports none
PADDLE_20_SUBMODULES = {
    'paddle.nn.functional.activation': (
        'elu elu_ gelu hardshrink hardsigmoid hardswish hardtanh leaky_relu log_sigmoid '
        'log_softmax maxout prelu relu relu6 relu_ selu sigmoid softmax softmax_ softplus '
        'softshrink softsign swish tanh tanhshrink thresholded_relu'),
    'paddle.nn.functional.common': (
        'alpha_dropout bilinear cosine_similarity dropout dropout2d dropout3d interpolate '
        'label_smooth linear pad unfold upsample'),
    'paddle.nn.functional.conv': (
        'conv1d conv1d_transpose conv2d conv2d_transpose conv3d conv3d_transpose'),
    'paddle.nn.functional.extension': 'diag_embed',
    'paddle.nn.functional.input': 'embedding one_hot',
    'paddle.nn.functional.loss': (
        'binary_cross_entropy binary_cross_entropy_with_logits cross_entropy ctc_loss dice_loss '
        'hsigmoid_loss kl_div l1_loss log_loss margin_ranking_loss mse_loss nll_loss npair_loss '
        'sigmoid_focal_loss smooth_l1_loss softmax_with_cross_entropy square_error_cost'),
    'paddle.nn.functional.norm': (
        'batch_norm instance_norm layer_norm local_response_norm normalize'),
    'paddle.nn.functional.pooling': (
        'adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d '
        'adaptive_max_pool2d adaptive_max_pool3d avg_pool1d avg_pool2d avg_pool3d max_pool1d '
        'max_pool2d max_pool3d'),
    'paddle.nn.functional.transformer': '',
    'paddle.nn.functional.vision': 'affine_grid grid_sample pixel_shuffle',
    'paddle.nn.layer.activation': (
        'ELU GELU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU LogSigmoid LogSoftmax '
        'Maxout PReLU ReLU ReLU6 SELU Sigmoid Softmax Softplus Softshrink Softsign Swish Tanh '
        'Tanhshrink ThresholdedReLU'),
    'paddle.nn.layer.common': (
        'AlphaDropout Bilinear CosineSimilarity Dropout Dropout2D Dropout3D Embedding Flatten '
        'Linear Pad1D Pad2D Pad3D Upsample UpsamplingBilinear2D UpsamplingNearest2D'),
    'paddle.nn.layer.conv': 'Conv1D Conv1DTranspose Conv2D Conv2DTranspose Conv3D Conv3DTranspose',
    'paddle.nn.layer.distance': 'PairwiseDistance',
    'paddle.nn.layer.loss': (
        'BCELoss BCEWithLogitsLoss CTCLoss CrossEntropyLoss HSigmoidLoss KLDivLoss L1Loss MSELoss '
        'MarginRankingLoss NLLLoss SmoothL1Loss'),
    'paddle.nn.layer.norm': (
        'BatchNorm BatchNorm1D BatchNorm2D BatchNorm3D GroupNorm InstanceNorm1D InstanceNorm2D '
        'InstanceNorm3D LayerNorm LocalResponseNorm SpectralNorm SyncBatchNorm'),
    'paddle.nn.layer.pooling': (
        'AdaptiveAvgPool1D AdaptiveAvgPool2D AdaptiveAvgPool3D AdaptiveMaxPool1D '
        'AdaptiveMaxPool2D AdaptiveMaxPool3D AvgPool1D AvgPool2D AvgPool3D MaxPool1D MaxPool2D '
        'MaxPool3D'),
    'paddle.nn.layer.rnn': (
        'BiRNN GRU GRUCell LSTM LSTMCell RNN RNNCellBase SimpleRNN SimpleRNNCell'),
    'paddle.nn.layer.transformer': (
        'MultiHeadAttention Transformer TransformerDecoder TransformerDecoderLayer '
        'TransformerEncoder TransformerEncoderLayer'),
    'paddle.nn.layer.vision': 'PixelShuffle',
    'paddle.tensor.array': 'array_length array_read array_write create_array',
    'paddle.tensor.attribute': 'imag rank real shape',
    'paddle.tensor.creation': (
        'arange diag empty empty_like eye full full_like linspace meshgrid ones ones_like '
        'to_tensor tril triu zeros zeros_like'),
    'paddle.tensor.linalg': 'bmm cholesky cross dist dot histogram matmul mv norm t transpose',
    'paddle.tensor.logic': (
        'allclose equal equal_all greater_equal greater_than is_empty is_tensor less_equal '
        'less_than logical_and logical_not logical_or logical_xor not_equal'),
    'paddle.tensor.manipulation': (
        'broadcast_to cast chunk concat expand expand_as flatten flip gather gather_nd reshape '
        'reshape_ roll scatter scatter_ scatter_nd scatter_nd_add shard_index slice split squeeze '
        'squeeze_ stack strided_slice tile transpose unbind unique unsqueeze unsqueeze_ unstack'),
    'paddle.tensor.math': (
        'abs acos add add_n addmm all any asin atan broadcast_shape ceil clip conj cos cosh '
        'cumsum divide erf exp floor floor_divide floor_mod increment inverse isfinite isinf '
        'isnan kron log log10 log1p log2 logsumexp max maximum min minimum mm mod multiplex '
        'multiply pow prod reciprocal remainder round rsqrt scale sign sin sinh sqrt square stanh '
        'subtract sum tanh tanh_ trace'),
    'paddle.tensor.random': (
        'multinomial normal rand randint randn randperm standard_normal uniform'),
    'paddle.tensor.search': (
        'argmax argmin argsort index_sample index_select masked_select nonzero sort topk where'),
    'paddle.tensor.stat': 'mean median numel std var',
    'paddle.tensor.tensor': '',
    'paddle.tensor.to_string': 'set_printoptions',
    'paddle.static.input': 'InputSpec data',
    'paddle.static.io': (
        'deserialize_persistables deserialize_program load_from_file load_inference_model '
        'save_inference_model save_to_file serialize_persistables serialize_program'),
    'paddle.static.nn.common': 'deform_conv2d fc',
    'paddle.nn.initializer.assign': 'Assign',
    'paddle.nn.initializer.constant': 'Constant',
    'paddle.nn.initializer.kaiming': 'KaimingNormal KaimingUniform',
    'paddle.nn.initializer.normal': 'Normal TruncatedNormal',
    'paddle.nn.initializer.uniform': 'Uniform',
    'paddle.nn.initializer.xavier': 'XavierNormal XavierUniform',
    'paddle.optimizer.adadelta': 'Adadelta',
    'paddle.optimizer.adagrad': 'Adagrad',
    'paddle.optimizer.adam': 'Adam',
    'paddle.optimizer.adamax': 'Adamax',
    'paddle.optimizer.adamw': 'AdamW',
    'paddle.optimizer.lamb': 'Lamb',
    'paddle.optimizer.lr': '',
    'paddle.optimizer.momentum': 'Momentum',
    'paddle.optimizer.optimizer': 'Optimizer',
    'paddle.optimizer.rmsprop': 'RMSProp',
    'paddle.optimizer.sgd': 'SGD',
    'paddle.metric.metrics': 'Accuracy Auc Metric Precision Recall accuracy',
    'paddle.amp.grad_scaler': 'GradScaler',
    'paddle.hapi.dynamic_flops': 'flops',
    'paddle.hapi.logger': '',
    'paddle.hapi.model': 'Model',
    'paddle.hapi.model_summary': 'summary',
    'paddle.hapi.progressbar': '',
}


def test_every_paddle_20_submodule_imports_with_its_parents_names():
    script = textwrap.dedent("""
        import importlib, json, sys
        import refimpl._alias as alias
        alias.install()
        wrong = {}
        for path, names in json.loads(sys.argv[1]).items():
            try:
                module = importlib.import_module(path)
            except ImportError as e:
                wrong[path] = "ImportError: %s" % e
                continue
            parent = importlib.import_module(path.rpartition(".")[0])
            differ = [n for n in names.split()
                      if getattr(module, n, None) is not getattr(parent, n)]
            if differ:
                wrong[path] = differ
        print(json.dumps(wrong))
    """)
    done = subprocess.run([sys.executable, "-c", script, json.dumps(PADDLE_20_SUBMODULES)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {}


def test_a_module_file_namespace_becomes_a_package_for_its_submodules():
    # `from paddle.nn.functional.common import interpolate`: paddle.nn.functional is the
    # module file refimpl/nn/functional.py; submodules.group gave it an (empty) __path__
    script = textwrap.dedent("""
        import refimpl._alias as alias
        alias.install()
        from paddle.nn.functional.common import interpolate
        from paddle.static.nn.control_flow import cond
        import paddle
        assert interpolate is paddle.nn.functional.interpolate
        assert cond is paddle.static.nn.cond
        assert paddle.nn.functional.__path__ == [] and paddle.static.nn.__path__ == []
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.split()[-1:] == ["ok"], done.stderr[-3000:]
