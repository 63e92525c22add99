"""``python -m olkit ...`` is the same program as the ``olkit`` command (docs/dev/architecture.md#commands)."""

from .cli import run

if __name__ == "__main__":
    run()
