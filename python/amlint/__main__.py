"""``python -m amlint``: run the amlint executable that this package installed."""

import os
import sys

from amlint._find_bin import find_amlint_bin


def main():
    try:
        amlint = find_amlint_bin()
    except FileNotFoundError as e:
        print("amlint: " + str(e), file=sys.stderr)
        return 2
    args = [amlint, *sys.argv[1:]]
    if os.name == "nt":
        # No exec on Windows: run it and pass its exit code on.
        import subprocess

        try:
            return subprocess.run(args).returncode
        except KeyboardInterrupt:
            return 130
    os.execv(amlint, args)


if __name__ == "__main__":
    sys.exit(main())
