# lit configuration for Nova: FileCheck tests of nova-opt, the mlir-opt plugin
# and the installed package.
import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "Nova"
# bash, so tests can inspect exit codes ($?).
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nova_obj_root, "test")

# Nova's tools first; the LLVM directory provides FileCheck, not and the
# upstream mlir-opt that the plugin tests load Nova into.
config.environment["PATH"] = os.pathsep.join(
    [config.nova_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])]
)

# Compiled kernels are cached in the build tree, never in the user's cache.
config.environment["NOVA_CACHE_DIR"] = os.path.join(config.test_exec_root, "kernel-cache")

config.substitutions.extend(
    [
        ("%shlibext", ".so"),
        ("%nova_libs", config.nova_libs_dir),
        ("%nova_tools", config.nova_tools_dir),
        ("%nova_src", config.nova_src_root),
        ("%nova_obj", config.nova_obj_root),
        ("%mlir_dir", config.mlir_dir),
        ("%cmake", config.cmake_command),
        ("%cxx", config.cxx_compiler),
        ("%python", sys.executable),
        ("%upstream_mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")),
    ]
)


def has_cuda_device():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


if has_cuda_device():
    config.available_features.add("cuda-device")
else:
    lit_config.note("no CUDA device: tests marked 'REQUIRES: cuda-device' are skipped")


# PyTorch parity tests use Debian's python3-torch, which installs for
# /usr/bin/python3 (not necessarily the first python3 on PATH).
def torch_python():
    for python in ["/usr/bin/python3", sys.executable]:
        try:
            if subprocess.run([python, "-c", "import torch"], capture_output=True,
                              timeout=120).returncode == 0:
                return python
        except (OSError, subprocess.SubprocessError):
            pass
    return None


# The parity tests are part of the check, not optional: without PyTorch the
# run fails rather than reporting them unsupported.
_torch_python = torch_python()
if not _torch_python:
    lit_config.fatal("no PyTorch for the parity tests: install python3-torch "
                     "(scripts/install-deps.sh does) and run again")
config.substitutions.append(("%torch_python", _torch_python))


# The CUDA toolkit's ptxas turns the GPU kernels' PTX into cubins
# (nova-gpu-pack); without it only the PTX is checked.
if shutil.which("ptxas") or os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
    config.available_features.add("ptxas")
else:
    lit_config.note("no ptxas: tests marked 'REQUIRES: ptxas' are skipped")


# The self-contained toolchain (NOVA_STATIC_TOOLCHAIN) is another build:
# test/Install/static-toolchain.test checks the tools in the folder named by
# `--param static_toolchain=DIR` or $NOVA_STATIC_TOOLCHAIN_DIR, by default
# build-static/nova-toolchain/bin in the source tree, where `make
# static-toolchain` puts them. Without a nova-compile there it is skipped.
_static_tools = (lit_config.params.get("static_toolchain")
                 or os.environ.get("NOVA_STATIC_TOOLCHAIN_DIR")
                 or os.path.join(config.nova_src_root, "build-static", "nova-toolchain", "bin"))
if os.access(os.path.join(_static_tools, "nova-compile"), os.X_OK):
    config.available_features.add("static-toolchain")
    config.substitutions.append(("%static_tools", os.path.abspath(_static_tools)))
else:
    lit_config.note(f"no static toolchain in {_static_tools}: "
                    "tests marked 'REQUIRES: static-toolchain' are skipped")
