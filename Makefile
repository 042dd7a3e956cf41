VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed

.PHONY: install train demo serve test lint bench peers clean

install: $(STAMP)

# torch (CPU build) is installed first so that nothing later pulls a CUDA build.
# editable_mode=compat puts the repo root on sys.path, so packages added after the
# install (e.g. new modules under envs/) are importable without reinstalling.
$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install torch==2.13.0
	$(PIP) install -e '.[dev]' --config-settings editable_mode=compat
	touch $(STAMP)

# The main job: self-play PPO from scratch on Normal (about 14 minutes on 2 cores);
# ends by comparing the trained team with the baseline team on 2,000 paired deals.
train: $(STAMP)
	$(VENV)/bin/commoncause train --config configs/normal.yaml

demo: $(STAMP)
	$(VENV)/bin/commoncause demo

# Play in the browser: http://127.0.0.1:8000/ (docs/web.md; records in records/web/).
serve: $(STAMP)
	$(VENV)/bin/commoncause serve

# pytest exit code 5 means "no tests collected": treat it as success.
test: $(STAMP)
	$(PY) -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) bench/bench_env.py

peers: $(STAMP)
	CMAKE_POLICY_VERSION_MINIMUM=3.5 $(PIP) install -e '.[dev,peers]' --config-settings editable_mode=compat

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -not -path './.git/*' -prune -exec rm -rf {} +
