VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
EXT_STAMP := $(VENV)/.compiled

.PHONY: install train demo serve test test-pure lint docs bench peers rllib test-rllib clean

install: $(EXT_STAMP)

# torch (CPU build) is installed first so that nothing later pulls a CUDA build.
# editable_mode=compat puts the repo root on sys.path, so packages added after the
# install (e.g. new modules under envs/) are importable without reinstalling.
$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install torch==2.13.0
	$(PIP) install -e '.[dev]' --config-settings editable_mode=compat
	touch $(STAMP) $(EXT_STAMP)

# The engines' hot modules (setup.py's COMPILED) are compiled by Cython at the install, and
# again here once a source has changed (until then commoncause/compiled.py runs the changed
# sources). Without a C compiler the pure-Python sources run.
$(EXT_STAMP): $(STAMP) setup.py $(wildcard envs/*.py envs/*/*.py train/selfplay.py agents/arena.py envs/common_cause/engine/*.[ch] envs/common_cause/engine/*.pyx train/*.pyx)
	$(PY) setup.py -q build_ext --inplace || echo "note: not compiled; the pure-Python sources run"
	touch $(EXT_STAMP)

# The main job: self-play PPO from scratch on Normal (10-29 minutes on the 2-core machines measured);
# ends by comparing the trained team with the baseline team on 2,000 paired deals.
train: $(EXT_STAMP)
	$(VENV)/bin/commoncause train --config configs/normal.yaml

demo: $(EXT_STAMP)
	$(VENV)/bin/commoncause demo

# Play in the browser: http://127.0.0.1:8000/ (docs/web.md; records in records/web/).
serve: $(EXT_STAMP)
	$(VENV)/bin/commoncause serve

# pytest exit code 5 means "no tests collected": treat it as success.
PYTEST = $(PY) -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

test: $(EXT_STAMP)
	$(PYTEST)

# The same suite on the pure-Python sources (commoncause/compiled.py), the reference.
test-pure: $(EXT_STAMP)
	COMMONCAUSE_PURE_PYTHON=1 $(PYTEST)

lint: $(EXT_STAMP)
	$(VENV)/bin/ruff check .

# The documentation site (MkDocs Material, works offline: open site/index.html) into site/.
docs: $(EXT_STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

bench: $(EXT_STAMP)
	$(PY) bench/bench_env.py

peers: $(STAMP)
	CMAKE_POLICY_VERSION_MINIMUM=3.5 $(PIP) install -e '.[dev,peers]' --config-settings editable_mode=compat

# Ray RLlib (train/rllib.py, docs/rllib.md) in its own venv: ray[rllib] 2.60 pins
# gymnasium==1.2.2, so the project runs there on 1.2.2; .venv keeps its own versions.
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed

rllib: $(RLLIB_STAMP)

$(RLLIB_STAMP): pyproject.toml
	python3 -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/pip install --upgrade pip
	$(RLLIB_VENV)/bin/pip install torch==2.13.0
	COMMONCAUSE_PURE_PYTHON=1 $(RLLIB_VENV)/bin/pip install -e '.[dev,rllib]' --config-settings editable_mode=compat
	touch $(RLLIB_STAMP)

# The RLlib tests, and the env and training tests on the gymnasium version ray pins (1.2.2).
test-rllib: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m pytest -m rllib tests/train/test_rllib.py
	$(RLLIB_VENV)/bin/python -m pytest tests/games/common_cause/test_pettingzoo.py tests/train/test_train.py tests/app/test_eval.py

clean:
	rm -rf $(VENV) $(RLLIB_VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis site
	find . -name __pycache__ -type d -not -path './.git/*' -prune -exec rm -rf {} +
