"""mmtune.tune and mmtune.show: the mmtune command, run as a subprocess."""
import os
import shutil
import subprocess


def _mmtune():
    env = os.environ.get("MMTUNE_BIN")
    if env:
        return env
    found = shutil.which("mmtune")
    if found:
        return found
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "mmtune")  # a checkout
    if os.access(here, os.X_OK):
        return here
    raise FileNotFoundError("the mmtune command is not found: install it (cmake --install), or set MMTUNE_BIN")


def _run(args, db):
    cmd = [_mmtune()] + args + (["--db", db] if db else [])
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {done.returncode}): {done.stderr.strip()}")
    return done.stdout


def tune(problem=None, *, shapes=None, device="cpu", budget=None, db=None, args=()):
    """Tunes one problem ("f32 row NN 512x384x256", as mmtune --problem reads it) or every
    problem of a shapes file, on device ("cpu", or a GPU number), into db (None: the
    default database, the one matmul reads). Returns mmtune's table (text); raises
    RuntimeError with mmtune's message where it fails."""
    if (problem is None) == (shapes is None):
        raise ValueError("one of problem and shapes")
    cmd = ["--device", str(device)] + (["--problem", problem] if problem else ["--shapes", str(shapes)])
    if budget is not None:
        cmd += ["--budget", str(budget)]
    return _run(cmd + ["--quiet"] + list(args), db)


def show(*, device=None, db=None, json=False):
    """What the database holds (for device): mmtune show's text, or its JSON parsed."""
    out = _run(["show"] + (["--device", str(device)] if device is not None else []) + (["--json"] if json else []), db)
    if json:
        import json as json_module
        return json_module.loads(out)
    return out
