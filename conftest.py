# The kata harness is a pytest plugin; pytester drives it in the suite's self-checks.
pytest_plugins = ["torch_katas.plugin", "pytester"]
