# The two commands a new user needs: `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.threadlab-installed
LAB_STAMP := $(VENV)/.threadlab-lab
# uv (a PyPI package) installs the same requirements as pip about ten times faster: a fresh clone's
# `make lab` took 6 minutes with pip on a loaded machine, 31 s with uv
INSTALL := $(PY) -m uv pip install --quiet --python $(PY)
define venv
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv
endef
ARGS ?=
# JupyterLab refuses to start as root unless told; containers and CI machines often are root
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab test lint bench browser-deps js-deps data clean

# the test stack (make test): threadlab, JupyterLab and everything the suite drives
$(STAMP): pyproject.toml
	$(venv)
	$(INSTALL) -e '.[dev]'
	touch $(STAMP) $(LAB_STAMP)

# make lab needs only threadlab and JupyterLab (the `lab` extra); a test venv already has both
$(LAB_STAMP): pyproject.toml
	$(venv)
	if [ $(STAMP) -nt pyproject.toml ]; then true; else $(INSTALL) -e '.[lab]'; fi
	touch $(LAB_STAMP)

## Open JupyterLab on the notebooks (bundled data in data/). Headless: make lab ARGS=--no-browser
lab: $(LAB_STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG) $(ARGS)

## The whole test suite: ruff, pytest (converters, loaders, widgets in a real browser), notebooks under nbval
test: $(STAMP) browser-deps js-deps
	$(VENV)/bin/ruff check threadlab tests benchmarks data
	$(PY) -m pytest -p no:randomly -n 2 --dist loadfile --nbval-lax tests notebooks

lint: $(STAMP)
	$(VENV)/bin/ruff check threadlab tests benchmarks data

## Debian's Chromium for the browser tests (never a downloaded browser)
browser-deps:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

## The npm `ai` package the stream tests drive (committed lockfile)
js-deps:
	@if [ -f tests/js/package-lock.json ]; then cd tests/js && npm ci --silent --no-audit --no-fund; fi

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache build dist threadlab.egg-info
