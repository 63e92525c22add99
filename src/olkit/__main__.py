"""``python -m olkit ...`` is the same program as the ``olkit`` command (DESIGN.md §2.1)."""
from .cli import run

if __name__ == "__main__":
    run()
