"""Builds the Cython kernels in refimpl/_kernels (everything else is in pyproject.toml)."""
import glob
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

openmp = [] if sys.platform == "darwin" else ["-fopenmp"]
extensions = [
    Extension(
        "refimpl._kernels." + os.path.splitext(os.path.basename(path))[0],
        [path],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3", "-fno-trapping-math"] + openmp,
        extra_link_args=openmp,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        depends=glob.glob("refimpl/_kernels/*.h"),   # headers the .pyx include (fast_exp.h)
    )
    for path in sorted(glob.glob("refimpl/_kernels/*.pyx"))
]

setup(ext_modules=cythonize(extensions, language_level=3,
                            compiler_directives={"boundscheck": False, "wraparound": False,
                                                 "cdivision": True, "initializedcheck": False}))
