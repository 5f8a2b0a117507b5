# Two entry points for a newcomer (see README.md):
#   make certify   set up, then run `bench certify` on the simulated rig
#   make test      set up, then run the project's tests
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup certify test system-deps clean locale

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# dieharder is a Debian package; installed when running as root and missing. So are Pango, HarfBuzz's subsetter
# and a font, which WeasyPrint needs to write the PDF certificate.
PDF_DEBS := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core
system-deps:
	@if ! ldconfig -p 2>/dev/null | grep -q libpangoft2-1.0.so.0 || ! ldconfig -p 2>/dev/null | grep -q libharfbuzz-subset.so.0; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PDF_DEBS) >/dev/null) \
	      || echo "warning: could not install $(PDF_DEBS); the PDF certificate will not be written"; \
	  else \
	    echo "note: the PDF certificate needs: sudo apt-get install $(PDF_DEBS)"; \
	  fi; \
	fi
	@if ! command -v dieharder >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dieharder >/dev/null) \
	      || echo "warning: could not install dieharder; dieharder tests will be skipped with that reason"; \
	  else \
	    echo "note: dieharder is not installed (sudo apt-get install dieharder); its tests will be skipped"; \
	  fi; \
	fi

setup: $(STAMP) system-deps

# A laboratory creates its signing key once, deliberately (`bench keys init`); a newcomer's machine gets one here.
certify: setup
	@$(BIN)/bench keys show >/dev/null 2>&1 || $(BIN)/bench keys init
	$(BIN)/bench certify --profile sim

# Every test on pytest-xdist workers, one more than the cores (many tests wait on simulated serial lines and
# time-outs, which would leave a core idle), handed out two at a time, the longest (marked slow) first.
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: setup
	$(BIN)/python -m pytest -n $(WORKERS) --dist load --maxschedchunk 2 --durations=10

# The certificate's message catalogues (reports/locale): extract the messages of the report modules and the
# template, merge them into each language's .po, compile every .po (the compiled .mo files are committed).
locale: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k N_ --no-location --sort-output -w 0 -o reports/locale/certificate.pot reports
	$(BIN)/pybabel update -i reports/locale/certificate.pot -d reports/locale -D certificate --no-wrap
	$(BIN)/pybabel compile -d reports/locale -D certificate
	$(BIN)/pybabel compile -d reports/locale -D recorded

clean:
	rm -rf $(VENV) runs .pytest_cache
