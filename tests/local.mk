# tests/: unit tests (C, TAP), the D suite, daemon end-to-end scripts.
# Every test prints TAP; the automake TAP driver collects the results.
include tests/unit/local.mk
