"""Generates the Python stubs of the druids contract into druids_bot/gen/.

    python druids_bot/_generate.py [--force]     (or ./generate.sh)

The stubs come from proto/druids/v1/*.proto (the repository's proto/ folder, or
$DRUIDS_PROTO_DIR) via grpcio-tools' bundled protoc. They are regenerated when
missing or older than a .proto file. Generated code is gitignored: never commit
or edit it.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

GEN_DIR = Path(__file__).resolve().parent / "gen"
PROTO_DIR = Path(
    os.environ.get("DRUIDS_PROTO_DIR")
    or Path(__file__).resolve().parents[3] / "proto"
)
_MARKER = GEN_DIR / "druids" / "v1" / "druids_pb2_grpc.py"


def _protos():
    return sorted((PROTO_DIR / "druids" / "v1").glob("*.proto"))


def is_stale():
    """True when the stubs are missing or older than a .proto file."""
    if not _MARKER.exists():
        return True
    built = _MARKER.stat().st_mtime
    return any(p.stat().st_mtime > built for p in _protos())


def generate():
    """Runs protoc into a scratch folder, then moves each file into place
    (atomically per file, so concurrent bots never import half a stub)."""
    try:
        from grpc_tools import protoc
        import grpc_tools
    except ImportError:
        sys.exit("druids_bot: grpcio-tools is missing: pip install -r requirements.txt")
    protos = _protos()
    if not protos:
        sys.exit(f"druids_bot: no .proto files under {PROTO_DIR}/druids/v1 (set DRUIDS_PROTO_DIR)")
    GEN_DIR.mkdir(parents=True, exist_ok=True)
    well_known = Path(grpc_tools.__file__).resolve().parent / "_proto"
    with tempfile.TemporaryDirectory(dir=GEN_DIR, prefix=".tmp-") as tmp:
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_DIR}",
            f"-I{well_known}",
            f"--python_out={tmp}",
            f"--grpc_python_out={tmp}",
            f"--pyi_out={tmp}",
            *map(str, protos),
        ]
        if protoc.main(args) != 0:
            sys.exit("druids_bot: protoc failed on " + " ".join(map(str, protos)))
        # The marker last: a stub set is complete once the marker is newer
        # than every .proto file.
        for src in sorted(Path(tmp).rglob("*.py*"), key=lambda f: f.name == _MARKER.name):
            dst = GEN_DIR / src.relative_to(tmp)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst.with_name(dst.name + ".part"))
            os.replace(dst.with_name(dst.name + ".part"), dst)


def ensure():
    """Generates the stubs if they are missing or stale."""
    if is_stale():
        generate()


if __name__ == "__main__":
    if "--force" in sys.argv[1:] or is_stale():
        generate()
        print(f"druids_bot: stubs generated in {GEN_DIR}")
    else:
        print(f"druids_bot: stubs up to date in {GEN_DIR}")
