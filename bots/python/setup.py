"""Build hook of the druids bot kit: generates the gRPC stubs at build time.

Everything else about the package is in pyproject.toml. The contract's .proto
files are looked for, in order, in

* ``$DRUIDS_PROTO_DIR`` (a folder holding ``druids/v1/*.proto``),
* ``proto/`` next to this file (where the sdist carries its copy),
* ``../../proto`` (the repository's own ``proto/``: builds from a checkout).

``protoc`` (bundled with grpcio-tools, a build requirement) writes
``druids_pb2.py``/``.pyi``, ``druids_pb2_grpc.py`` and the per-game modules into
``druids_bot/_pb`` of the build, with the generated ``from druids.v1 import``
lines made relative, so the stubs live inside ``druids_bot`` and cannot collide
with another package's ``druids`` modules.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
PROTO_PACKAGE = Path("druids") / "v1"
STUB_PACKAGE = Path("druids_bot") / "_pb"
# `from druids.v1 import x_pb2 as y` in generated code -> `from . import x_pb2 as y`.
ABSOLUTE_IMPORT = re.compile(r"^from druids\.v1 import ", re.MULTILINE)


def proto_root() -> Path:
    """The folder holding ``druids/v1/*.proto``."""
    candidates = [os.environ.get("DRUIDS_PROTO_DIR"), HERE / "proto", HERE.parent.parent / "proto"]
    for candidate in candidates:
        if candidate and (Path(candidate) / PROTO_PACKAGE / "druids.proto").is_file():
            return Path(candidate)
    raise SystemExit(
        "druids-bot build: no druids/v1/druids.proto found (looked in $DRUIDS_PROTO_DIR, "
        f"{HERE / 'proto'}, {HERE.parent.parent / 'proto'}); build from a checkout of the "
        "druids repository or from its sdist"
    )


def generate_stubs(out_dir: Path) -> list[Path]:
    """Runs protoc on every contract file into ``out_dir``; returns the files written."""
    import grpc_tools
    from grpc_tools import protoc

    root = proto_root()
    protos = sorted((root / PROTO_PACKAGE).glob("*.proto"))
    well_known = Path(grpc_tools.__file__).resolve().parent / "_proto"
    written = []
    with tempfile.TemporaryDirectory(prefix="druids-stubs-") as tmp:
        args = [
            "grpc_tools.protoc",
            f"-I{root}",
            f"-I{well_known}",
            f"--python_out={tmp}",
            f"--grpc_python_out={tmp}",
            f"--pyi_out={tmp}",
            *map(str, protos),
        ]
        if protoc.main(args) != 0:
            raise SystemExit("druids-bot build: protoc failed on " + " ".join(map(str, protos)))
        out_dir.mkdir(parents=True, exist_ok=True)
        for src in sorted((Path(tmp) / PROTO_PACKAGE).iterdir()):
            dst = out_dir / src.name
            dst.write_text(ABSOLUTE_IMPORT.sub("from . import ", src.read_text()))
            written.append(dst)
    return written


class BuildPyWithStubs(build_py):
    """build_py that also writes the generated stubs into ``druids_bot/_pb``."""

    def run(self) -> None:
        if not self.editable_mode:
            # In-tree builds reuse build/: drop modules deleted from the source since.
            shutil.rmtree(Path(self.build_lib) / "druids_bot", ignore_errors=True)
        super().run()
        # An editable install imports from the source tree: generate there.
        base = HERE if self.editable_mode else Path(self.build_lib)
        self._stubs = generate_stubs(base / STUB_PACKAGE)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), *map(str, getattr(self, "_stubs", []))]


class SdistWithProtos(sdist):
    """sdist that carries a copy of the contract under ``proto/``, so a wheel
    can be built from the sdist alone."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        src = proto_root() / PROTO_PACKAGE
        dst = Path(base_dir) / "proto" / PROTO_PACKAGE
        dst.mkdir(parents=True, exist_ok=True)
        for proto in sorted(src.glob("*.proto")):
            shutil.copyfile(proto, dst / proto.name)


setup(cmdclass={"build_py": BuildPyWithStubs, "sdist": SdistWithProtos})
