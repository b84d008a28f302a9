"""AnalysisConfig (paddle.inference.Config, fluid.core.AnalysisConfig), NativeConfig and
the pass builder: what a predictor loads and the switches Paddle's CPU build takes.

refimpl is a CPU build without MKLDNN, TensorRT, Lite or XPU: the switches for them are
accepted and leave the feature off with Paddle's logged message (stderr), as Paddle's CPU
build does; enable_xpu raises, as it does there. specs/inference.md."""
import copy
import enum
import sys

from ..framework.place import is_compiled_with_cuda

__all__ = ["AnalysisConfig", "NativeConfig", "PaddlePassBuilder", "CPU_PASSES",
           "ANALYSIS_PASSES"]

# Paddle 2.0's CpuPassStrategy: the IR passes an AnalysisPredictor with ir_optim runs, in
# order (paddle_pass_builder.cc). refimpl has none of them: its predictor runs the program
# as saved, which computes the same values (specs/inference.md#passes).
CPU_PASSES = ("simplify_with_basic_ops_pass", "attention_lstm_fuse_pass",
              "seqconv_eltadd_relu_fuse_pass", "seqpool_cvm_concat_fuse_pass",
              "mul_lstm_fuse_pass", "fc_gru_fuse_pass", "mul_gru_fuse_pass",
              "seq_concat_fc_fuse_pass", "squeeze2_matmul_fuse_pass",
              "reshape2_matmul_fuse_pass", "flatten2_matmul_fuse_pass",
              "map_matmul_to_mul_pass", "fc_fuse_pass", "repeated_fc_relu_fuse_pass",
              "squared_mat_sub_fuse_pass", "conv_bn_fuse_pass",
              "conv_eltwiseadd_bn_fuse_pass", "conv_transpose_bn_fuse_pass",
              "conv_transpose_eltwiseadd_bn_fuse_pass", "is_test_pass",
              "runtime_context_cache_pass")
ANALYSIS_PASSES = ("ir_graph_build_pass", "ir_graph_clean_pass", "ir_analysis_pass",
                   "ir_params_sync_among_devices_pass", "adjust_cudnn_workspace_size_pass",
                   "inference_op_replace_pass")


def _log_error(message):
    """Paddle's LOG(ERROR) of a switch its build cannot honour (glog writes to stderr)."""
    sys.stderr.write("E refimpl inference: %s\n" % message)


class PaddlePassBuilder:
    """config.pass_builder(): the IR pass list, editable (set_passes, append_pass,
    insert_pass, delete_pass by name or index) and the analysis passes."""

    def __init__(self, passes=CPU_PASSES):
        self._passes = list(passes)
        self._analysis = list(ANALYSIS_PASSES)
        self._debug = False

    def set_passes(self, passes):
        self._passes = [str(p) for p in passes]

    def append_pass(self, name):
        self._passes.append(name)

    def insert_pass(self, idx, name):
        self._passes.insert(idx, name)

    def delete_pass(self, name_or_idx):
        if isinstance(name_or_idx, int):
            if not 0 <= name_or_idx < len(self._passes):
                raise IndexError("delete_pass: index %d outside the %d passes"
                                 % (name_or_idx, len(self._passes)))
            del self._passes[name_or_idx]
        else:       # Paddle removes every occurrence, and a name it lacks is no error
            self._passes = [p for p in self._passes if p != name_or_idx]

    def append_analysis_pass(self, name):
        self._analysis.append(name)

    def turn_on_debug(self):
        self._debug = True

    def all_passes(self):
        return list(self._passes)

    def analysis_passes(self):
        return self._analysis + ["ir_graph_to_program_pass"]

    def debug_string(self):
        return "".join("  - %s\n" % p for p in self._passes)

    def use_gpu(self):
        return False


def _predictor_of(config):
    """The predictor of `config` (create_paddle_predictor's): CompiledProgram's
    _with_inference_optimize runs through it, the compiler below inference in the layers."""
    from .predictor import create_paddle_predictor
    return create_paddle_predictor(config)


class AnalysisConfig:
    """AnalysisConfig(), AnalysisConfig(other), AnalysisConfig(model_dir) (a `__model__`
    file and a file per variable), AnalysisConfig(prog_file, params_file) (a program file
    and the combined parameter file save_inference_model writes with params_filename)."""

    class Precision(enum.IntEnum):
        Float32 = 0
        Int8 = 1
        Half = 2

        def __str__(self):
            return "Precision.%s" % self.name

        __repr__ = __str__      # 1.8.5's binding prints both as Precision.Half

    # export_values: AnalysisConfig.Float32 too
    Float32, Int8, Half = Precision.Float32, Precision.Int8, Precision.Half
    _create_predictor = _predictor_of

    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], AnalysisConfig):
            self.__dict__.update(copy.deepcopy(args[0].__dict__))
            self._valid = True
            return
        if len(args) > 2:
            raise TypeError("AnalysisConfig takes (), (config), (model_dir) or (prog_file, "
                            "params_file); got %d arguments" % len(args))
        self._model_dir = self._prog_file = self._params_file = ""
        self._model_buffers = None
        self._use_gpu, self._gpu_device_id, self._memory_pool_mb = False, 0, 100
        self._ir_optim, self._ir_debug = True, False
        self._use_feed_fetch_ops, self._specify_input_name = True, False
        self._memory_optim, self._profile, self._glog_disabled = False, False, False
        self._cpu_threads = 1
        self._optim_cache_dir = ""
        self._pass_builder = PaddlePassBuilder()
        self._valid = True
        if args:
            self.set_model(*args)

    # -- the model ------------------------------------------------------------------
    def set_model(self, *args):
        """set_model(model_dir) or set_model(prog_file, params_file)."""
        for a in args:
            if not isinstance(a, str):
                raise TypeError("AnalysisConfig.set_model: expected str paths, got %s"
                                % type(a).__name__)
        if len(args) == 1:
            self._model_dir = args[0]
        elif len(args) == 2:
            self._prog_file, self._params_file = args
        else:
            raise TypeError("AnalysisConfig.set_model takes (model_dir) or (prog_file, "
                            "params_file); got %d arguments" % len(args))
        self._model_buffers = None

    def set_prog_file(self, path):
        self._prog_file = path

    def set_params_file(self, path):
        self._params_file = path

    def model_dir(self):
        return self._model_dir

    def prog_file(self):
        return self._prog_file

    def params_file(self):
        return self._params_file

    def set_model_buffer(self, prog_buffer, prog_size, params_buffer, params_size):
        """The model from memory: the program file's and the combined parameter file's
        bytes (Paddle's sizes are the lengths of those buffers)."""
        buffers = []
        for what, data, size in (("prog_buffer", prog_buffer, prog_size),
                                 ("params_buffer", params_buffer, params_size)):
            if isinstance(data, str):
                data = data.encode("latin-1")
            if not isinstance(data, (bytes, bytearray)):
                raise TypeError("set_model_buffer: %s must be bytes, got %s"
                                % (what, type(data).__name__))
            if size != len(data):
                raise ValueError("set_model_buffer: %s holds %d bytes, its size says %d"
                                 % (what, len(data), size))
            buffers.append(bytes(data))
        self._model_buffers = tuple(buffers)

    def model_from_memory(self):
        return self._model_buffers is not None

    # -- devices: refimpl is a CPU build --------------------------------------------
    def enable_use_gpu(self, memory_pool_init_size_mb, device_id=0):
        self._memory_pool_mb, self._gpu_device_id = memory_pool_init_size_mb, device_id
        if not is_compiled_with_cuda():
            _log_error("Please compile with gpu to EnableGpu()")
            self._use_gpu = False

    def disable_gpu(self):
        self._use_gpu = False

    def use_gpu(self):
        return self._use_gpu

    def gpu_device_id(self):
        return self._gpu_device_id

    def memory_pool_init_size_mb(self):
        return self._memory_pool_mb

    def fraction_of_gpu_memory_for_pool(self):
        return 0.0      # Paddle's answer without a GPU

    def enable_xpu(self, l3_workspace_size=0xfffc00):
        raise RuntimeError("AnalysisConfig.enable_xpu: You tried to use an XPU device, but "
                           "Paddle was not compiled with XPU-runtime (refimpl runs on CPU)")

    def enable_tensorrt_engine(self, workspace_size=1 << 20, max_batch_size=1,
                               min_subgraph_size=3, precision_mode=Precision.Float32,
                               use_static=False, use_calib_mode=True):
        if not self._use_gpu:
            _log_error("To use TensorRT engine, please call EnableGpu() first")
            return
        _log_error("To use TensorRT engine, please compile inference lib with GPU first.")

    def set_trt_dynamic_shape_info(self, min_input_shape=None, max_input_shape=None,
                                   optim_input_shape=None, disable_trt_plugin_fp16=False):
        """Recorded only: TensorRT never turns on in a CPU build."""
        self._trt_dynamic_shapes = (min_input_shape or {}, max_input_shape or {},
                                    optim_input_shape or {})

    def tensorrt_engine_enabled(self):
        return False

    def enable_tensorrt_oss(self):
        pass        # only takes effect with TensorRT

    def tensorrt_oss_enabled(self):
        return False

    def enable_lite_engine(self, precision_mode=Precision.Float32, zero_copy=False,
                           passes_filter=(), ops_filter=()):
        sys.stderr.write("W refimpl inference: You tried to enable the lite subgraph but "
                         "did not have the option -DWITH_LITE compiled.\n")

    def lite_engine_enabled(self):
        return False

    def enable_mkldnn(self):
        _log_error("Please compile with MKLDNN first to use MKLDNN")

    def mkldnn_enabled(self):
        return False

    def enable_mkldnn_bfloat16(self):
        _log_error("Please compile with MKLDNN first to use MkldnnBfloat16")

    def enable_quantizer(self):
        _log_error("Please compile with MKLDNN first to use MkldnnQuantizer")

    def set_mkldnn_cache_capacity(self, capacity=0):
        _log_error("Please compile with MKLDNN first to set MKLDNN Thread Id")

    def set_mkldnn_op(self, op_types):
        self._mkldnn_ops = set(op_types)    # kept, as Paddle keeps it; MKLDNN stays off

    def set_bfloat16_op(self, op_types):
        self._bfloat16_ops = set(op_types)

    def quantizer_config(self):
        raise RuntimeError("AnalysisConfig.quantizer_config: MkldnnQuantizer was not enabled "
                           "yet (enable_quantizer needs an MKLDNN build)")

    def set_cpu_math_library_num_threads(self, n):
        self._cpu_threads = int(n)

    def cpu_math_library_num_threads(self):
        return self._cpu_threads

    # -- what the predictor does ----------------------------------------------------
    def switch_ir_optim(self, x=True):
        self._ir_optim = bool(x)

    def ir_optim(self):
        return self._ir_optim

    def switch_ir_debug(self, x=True):
        self._ir_debug = bool(x)

    def switch_use_feed_fetch_ops(self, x=True):
        self._use_feed_fetch_ops = bool(x)

    def use_feed_fetch_ops_enabled(self):
        return self._use_feed_fetch_ops

    def switch_specify_input_names(self, x=True):
        self._specify_input_name = bool(x)

    def specify_input_name(self):
        return self._specify_input_name

    def enable_memory_optim(self):
        self._memory_optim = True   # refimpl's executor frees dead values in any case

    def enable_profile(self):
        self._profile = True

    def disable_glog_info(self):
        self._glog_disabled = True

    def glog_info_disabled(self):
        return self._glog_disabled

    def set_optim_cache_dir(self, path):
        self._optim_cache_dir = path

    def pass_builder(self):
        return self._pass_builder

    def delete_pass(self, name):
        self._pass_builder.delete_pass(name)

    def to_native_config(self):
        native = NativeConfig()
        native.model_dir, native.prog_file = self._model_dir, self._prog_file
        native.param_file, native.specify_input_name = self._params_file, \
            self._specify_input_name
        native.set_cpu_math_library_num_threads(self._cpu_threads)
        return native

    def is_valid(self):
        return self._valid

    def _take(self, fn):
        """Mark the config used by a predictor: Paddle 2.0's 'Each config can only be used
        for one predictor'."""
        if not self._valid:
            raise ValueError("%s: Note: Each config can only be used for one predictor "
                             "(make a new AnalysisConfig, or copy it: AnalysisConfig(config))"
                             % fn)
        self._valid = False

    def _model_source(self):
        """('memory', prog bytes, params bytes), ('files', prog_file, params_file) or
        ('dir', model_dir, None), as Paddle's predictor picks them: prog_file and
        params_file when set, else model_dir. One of the two files alone is an error (1.8.5
        makes no predictor then, 2.0 raises PreconditionNotMet)."""
        if self._model_buffers is not None:
            return ("memory",) + self._model_buffers
        if self._prog_file or self._params_file:
            if not (self._prog_file and self._params_file):
                raise ValueError("AnalysisConfig: prog_file %r and params_file %r: Either "
                                 "model_dir or param_file / prog_file should be set (both "
                                 "files, or model_dir alone)"
                                 % (self._prog_file, self._params_file))
            return "files", self._prog_file, self._params_file
        if not self._model_dir:
            raise ValueError("AnalysisConfig: Either model_dir or prog_file should be set")
        return "dir", self._model_dir, None


class NativeConfig:
    """fluid.core.NativeConfig: NativePaddlePredictor's settings (model_dir, or prog_file
    and param_file), fields as in Paddle."""

    def __init__(self):
        self.model_dir = self.prog_file = self.param_file = ""
        self.use_gpu, self.device, self.fraction_of_gpu_memory = False, 0, -1.0
        self.specify_input_name = False
        self._cpu_threads = 1

    _create_predictor = _predictor_of

    def set_cpu_math_library_num_threads(self, n):
        self._cpu_threads = int(n)

    def cpu_math_library_num_threads(self):
        return self._cpu_threads

    def _analysis_config(self):
        if self.use_gpu and not is_compiled_with_cuda():
            raise RuntimeError("NativeConfig: use_gpu is True, but refimpl runs on CPU only")
        config = AnalysisConfig()
        if self.prog_file or self.param_file:
            config.set_model(self.prog_file, self.param_file)
        else:
            config.set_model(self.model_dir)
        config.switch_ir_optim(False)
        config.switch_specify_input_names(self.specify_input_name)
        return config
