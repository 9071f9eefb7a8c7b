"""Runs pytest over tests/python, or exits 77 (ctest: skipped) with a message where pytest is
missing. The module must import: the build made it (CULPRIT_PYTHON on)."""
import sys

try:
    import pytest
except ImportError:
    print("python.module: skipped: pytest is not installed (Debian: python3-pytest)")
    sys.exit(77)
try:
    import culprit  # noqa: F401
except ImportError as err:
    print(f"python.module: the culprit module does not import ({err}); is PYTHONPATH build/python?")
    sys.exit(1)
sys.exit(pytest.main(sys.argv[1:]))
