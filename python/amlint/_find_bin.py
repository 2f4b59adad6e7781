"""Where the amlint executable of this package is."""

import os
import sys
import sysconfig


def _candidates():
    """Where pip puts the executable of this package, most likely first."""
    exe = "amlint" + (sysconfig.get_config_var("EXE") or "")
    dirs = [sysconfig.get_path("scripts")]
    # `pip install --user`
    if sys.version_info >= (3, 10):
        user = sysconfig.get_preferred_scheme("user")
    elif os.name == "nt":
        user = "nt_user"
    elif sys.platform == "darwin" and sys._framework:
        user = "osx_framework_user"
    else:
        user = "posix_user"
    dirs.append(sysconfig.get_path("scripts", scheme=user))
    # `pip install --target DIR`: the package is DIR/amlint, the executable DIR/bin.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs.append(os.path.join(package_root, "bin"))
    return [os.path.join(d, exe) for d in dirs if d]


def find_amlint_bin():
    """The path of the amlint executable installed with this package."""
    for path in _candidates():
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        "the amlint executable was not found next to this Python package (looked at: "
        + ", ".join(_candidates())
        + "); reinstall it with `pip install --force-reinstall amlint`"
    )
