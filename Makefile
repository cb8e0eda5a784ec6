# traverse — off-road mobility planning toolchain.
# `make help` lists the targets.

PREFIX ?= /usr/local
SAN ?= 0

# Debian packages: what building needs (libglpk-dev: GLPK, the MILP solver
# trv-fleet checks its routing heuristic against; no pkg-config file, so
# -lglpk below; libode-dev: the Open Dynamics Engine, trv-sim's dynamics = dynamic),
# and what the tests and the demo add (gdal-bin gives gdaldem/gdalwarp, the independent references; fuzzylite the
# fuzzy peer; xmllint checks the QGIS XML; man-db the installed man pages;
# chromium with its driver and selenium open the report and the console in a real browser;
# libwebsockets-dev: the console's HTTP and WebSocket server; libjs-leaflet: its map; libjs-three: the 3D view;
# openmpi-bin + libopenmpi-dev build and run bin/mpi/trv-terrain under mpirun,
# tests/tool_mpi.sh).
BUILD_PKGS := build-essential pkg-config time libgdal-dev libtiff-dev libproj-dev liblapacke-dev libopenblas-dev libpng-dev \
    libfreetype-dev fonts-dejavu-core libjson-c-dev libglpk-dev libwebsockets-dev libode-dev
TEST_PKGS := libcmocka-dev gdal-bin fuzzylite libxml2-utils man-db chromium chromium-driver python3-selenium \
    libjs-leaflet libjs-three openmpi-bin libopenmpi-dev
# peers that make bench compares against when present (not needed to build or test)
BENCH_PKGS := r-cran-gstat grass-core
PKGS := gdal libtiff-4 proj lapacke openblas libpng freetype2 json-c libwebsockets ode

CC ?= cc
CFLAGS ?= -O2 -g
FUZZ ?= 0
FUZZ_CC ?= clang
FUZZ_S ?= 300
WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
ifeq ($(FUZZ),1)
# make fuzz's own build (clang, libFuzzer's coverage, ASan + UBSan)
CC := $(FUZZ_CC)
BUILD := build/fuzz
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
BINDIR := $(BUILD)/bin
LIBDIR := $(BUILD)/lib
else ifeq ($(SAN),1)
BUILD := build/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
BINDIR := $(BUILD)/bin
LIBDIR := $(BUILD)/lib
else
BUILD := build/rel
SANFLAGS :=
BINDIR := bin
LIBDIR := lib
endif

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -D_DEFAULT_SOURCE -pthread -Isrc $(PKG_CFLAGS)
LDLIBS = $(PKG_LIBS) -lglpk -lm -pthread

MODULES := core geo run terrain kriging terramech fuzzy prm fleet sim render qgis report export console
LIB_SRC := $(foreach m,$(MODULES),$(wildcard src/$(m)/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
HEADERS := $(foreach m,$(MODULES),$(wildcard src/$(m)/*.h))
PUBLIC_HEADERS := $(filter-out %_priv.h,$(HEADERS))
LIB := $(LIBDIR)/libtraverse.a

TOOL_SRC := $(wildcard tools/trv-*.c)
TOOLS := $(TOOL_SRC:tools/%.c=$(BINDIR)/%)
# linked into every tool: the libraries --version names (tools/tool.h)
TOOL_OBJ := $(BUILD)/tools/tool.o

TEST_SRC := $(wildcard tests/test_*.c)
TESTS := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TOOL_TESTS := $(wildcard tests/tool_*.sh) tests/fuzz/replay.sh
# the fuzz harnesses (tests/fuzz/fuzz_NAME.c): make fuzz runs them under
# libFuzzer; make test replays their corpora through replay_NAME, the same
# harness with tests/fuzz/driver.c's main() (no fuzzing)
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay_%)
FUZZ_SRC := tests/fuzz/common.c tests/fuzz/fuzz.h
FUZZ_DEFS := -DFUZZ_DATADIR='"$(CURDIR)/data"'

.PHONY: all deps test demo bench clean install uninstall man help check-pkgs check-qgis docs console
.DEFAULT_GOAL := all

# examples/*.c: protocol clients (standalone, the C library only)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))

all: check-pkgs $(LIB) $(TOOLS) $(EXAMPLES)

help:
	@echo "traverse make targets:"
	@echo "  make              build $(LIB) and bin/trv-*"
	@echo "  make test         install missing packages, build, run every test (SAN=1: ASan+UBSan)"
	@echo "  make demo         install missing packages, build, run the pipeline on data/jacksboro"
	@echo "                    (AREA=name DEM=file SOIL=file LANDUSE=file FROM=lon,lat TO=lon,lat"
	@echo "                     [LANDUSE_CLASSES=data/classes/nlcd.csv SOIL_CLASSES=data/classes/soils_usda.csv]"
	@echo "                     [T_SRS=crs RES=m SEED=n VEHICLE=file.ini RULES=file.fcl]"
	@echo "                     [CONDITION=dry|normal|wet: the soils in that condition, into out/AREA-CONDITION])"
	@echo "  make console      install missing packages, build, run the demo's blocked scenario live in the"
	@echo "                    operator's console in a browser (CONSOLE=[ADDR:]PORT, default 127.0.0.1:8023)"
	@echo "  make fuzz         install clang, run each tests/fuzz/ harness under libFuzzer for FUZZ_S s (300)"
	@echo "                    (FUZZ_NAMES=\"csv fcl\" a subset; docs/tests.md)"
	@echo "  make bench        time traverse against its peers (GDAL, gstat, GRASS) on the same machine"
	@echo "  make bench-scale  the streamed raster stages at 30, 10 and 5 m: time, peak memory, growth exponents"
	@echo "  make check-qgis   install python3-qgis (~160 packages, ~620 MB) and open the demo project in a headless QGIS"
	@echo "  make install-qgis the QGIS Processing plugin into a profile (QGIS_PROFILE_DIR=..., default the user's)"
	@echo "  make check-qgis-provider  install python3-qgis and test the plugin in a headless QGIS"
	@echo "  make mutants      apply each semantic mutant of tests/mutants.txt and report the ones no test kills"
	@echo "                    (MUTANTS=word,... a subset, MUTANTS_MIN=95 fail below; docs/testing.md)"
	@echo "  make docs         regenerate docs/trv-*.md from each tool's --help and docs/src/trv-*.md"
	@echo "  make deps         install the Debian packages the build, tests and demo need"
	@echo "  make install      install tools, library, headers, data and man pages (man trv-speed) under"
	@echo "                    PREFIX ($(PREFIX)); DESTDIR=dir stages the tree in dir, for a package"
	@echo "  make uninstall    remove what make install put under DESTDIR/PREFIX (its manifest), nothing else"
	@echo "  make man          the man pages in $(MAN_DIR)/ (from --help; read one with man -l)"
	@echo "  make clean        remove build products and out/"

deps:
	@sh tools/deps.sh $(BUILD_PKGS) $(TEST_PKGS)

check-pkgs:
	@pkg-config --exists $(PKGS) || { echo "traverse: missing build packages; run 'make deps'" >&2; \
	    pkg-config --print-errors --exists $(PKGS); exit 1; }

# -MMD: each object depends on the headers it includes (and nothing else),
# so a change in one module rebuilds only what uses it.
$(BUILD)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

-include $(wildcard $(BUILD)/src/*/*.d $(BUILD)/tools/*.d $(BUILD)/tools/mpi/*.d $(BUILD)/tests/*.d $(BUILD)/bench/*.d $(BUILD)/examples/*.d)

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BINDIR)/%: $(BUILD)/tools/%.o $(TOOL_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< $(TOOL_OBJ) $(LIB) $(LDLIBS)

# MPI builds (docs/cluster.md): bin/mpi/trv-terrain, trv-speed and trv-cost, each the same tool with its
# blocks over the ranks of mpirun, built when OpenMPI's pkg-config file is
# there (libopenmpi-dev); the other tools never link MPI.
MPI_TOOLS := $(if $(shell pkg-config --exists ompi-c 2>/dev/null && echo y),$(addprefix $(BINDIR)/mpi/,trv-terrain trv-speed trv-cost))
all: $(MPI_TOOLS)

$(BUILD)/tools/mpi/%.o: tools/%.c tools/mpi_split.h Makefile
	@mkdir -p $(dir $@)
	@echo "  CC $< (MPI)"
	@$(CC) $(ALL_CFLAGS) -DTRV_MPI $(shell pkg-config --cflags ompi-c) -MMD -MP -c $< -o $@

$(BUILD)/tools/mpi_split.o: tools/mpi_split.c tools/mpi_split.h Makefile
	@mkdir -p $(dir $@)
	@echo "  CC $<"
	@$(CC) $(ALL_CFLAGS) $(shell pkg-config --cflags ompi-c) -MMD -MP -c $< -o $@

$(BINDIR)/mpi/%: $(BUILD)/tools/mpi/%.o $(BUILD)/tools/mpi_split.o $(TOOL_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs ompi-c)

$(BUILD)/examples/%: $(BUILD)/examples/%.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< -lm

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< $(LIB) $(LDLIBS) -lcmocka

$(BUILD)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(FUZZ_SRC) $(LIB) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_DEFS) -o $@ $< tests/fuzz/driver.c tests/fuzz/common.c $(LIB) $(LDLIBS)

$(BUILD)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC) $(LIB) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUZZ_DEFS) -fsanitize=fuzzer -o $@ $< tests/fuzz/common.c $(LIB) $(LDLIBS)

# Sanitizer runs: leaks inside GDAL/PROJ's one-time caches are theirs, not
# ours (tests/lsan.supp names them); everything else fails the run.
TEST_ENV := TRV_BIN=$(BINDIR) TRV_SAN=$(SAN) TRV_DATADIR=$(CURDIR)/data TRV_TESTDATA=$(CURDIR)/tests/data \
    TRV_EXAMPLES=$(BUILD)/examples \
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

test: deps
	@$(MAKE) --no-print-directory all $(TESTS) $(FUZZ_REPLAY)
	@$(TEST_ENV) TRV_FUZZ_BIN=$(BUILD)/tests/fuzz TRV_TEST_PKGS="$(TEST_PKGS)" sh tests/run.sh $(TESTS) $(TOOL_TESTS)

# make fuzz: each harness under libFuzzer for FUZZ_S seconds (default 300),
# from its seed corpus tests/fuzz/corpus/NAME (the inputs it finds go to
# build/fuzz/corpus/NAME); a crash, leak or sanitizer report is written to
# tests/fuzz/crashes/NAME/, which make test then replays, and fails the run.
# FUZZ_NAMES="csv fcl" picks harnesses (docs/tests.md).
.PHONY: fuzz
fuzz:
	@sh tools/deps.sh $(FUZZ_CC)
	@$(MAKE) --no-print-directory FUZZ=1 $(FUZZ_NAMES:%=build/fuzz/tests/fuzz/fuzz_%)
	@LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	    sh tests/fuzz/run.sh build/fuzz/tests/fuzz $(FUZZ_S) $(FUZZ_NAMES)

# make mutants: each semantic mutant of tests/mutants.txt applied alone to a
# copy of the tree, rebuilt, and run against the tests it names; reports the
# survivors and the score (docs/testing.md). 10 to 30 minutes on two cores,
# so not part of make test. MUTANTS=word,... runs the mutants whose id holds
# a word; MUTANTS_MIN=95 fails below that score; MUTANTS_KEEP=1 keeps the copy;
# MUTANTS_CHECK=1 only checks the list against the tree.
.PHONY: mutants
mutants: deps
	@python3 tools/mutants.py

# ---- demo pipeline -------------------------------------------------------
AREA ?= jacksboro
DEM ?= data/jacksboro/dem_3arcsec.tif
SOIL ?= data/jacksboro/soil_7p5arcsec.tif
LANDUSE ?= data/jacksboro/landuse_30m_utm16n.tif
T_SRS ?=
RES ?= 30
SEED ?= 1
NMAX ?=
VEHICLE ?= data/vehicles/ugv_hua2022.ini
RULES ?= data/fuzzy/mobility.fcl
# the class tables: LANDUSE_CLASSES=data/classes/nlcd.csv (or worldcover.csv,
# corine.csv) for a standard land-cover raster, SOIL_CLASSES=data/classes/soils_usda.csv
# for USDA texture classes (data/classes/README.md)
LANDUSE_CLASSES ?= data/classes/landuse.csv
SOIL_CLASSES ?= data/classes/soils.csv
# the mission: two points (lon,lat) about 31 km apart across the Pine Mountain fault
FROM ?= -84.3637,36.6957
TO ?= -84.1994,36.5216
# a multi-stop mission from FROM: sites (lon,lat;...) visited in the order of
# least time and back (trv-route --visit --return); empty skips it. Four GO
# cells of Jacksboro with its bundled DEM, none on another area unless given
VISIT_JACKSBORO := -84.34853,36.51070;-84.30482,36.50593;-84.21294,36.55600;-84.22927,36.65209
VISIT ?= $(if $(filter data/jacksboro/dem_3arcsec.tif,$(DEM)),$(VISIT_JACKSBORO))
# ground conditions: CONDITION=dry|normal|wet runs the whole pipeline with
# the soils in that condition (trv-speed --condition; docs/method.md §2.11),
# into out/$(AREA)-$(CONDITION) unless OUT is given, so that the normal run
# is never overwritten
CONDITION ?=
OUT ?= out/$(AREA)$(if $(CONDITION),-$(CONDITION))
# the soil table the stages after trv-speed read: in a condition, the one
# trv-speed wrote with the values in force
COST_SOILS := $(if $(CONDITION),$(OUT)/speed_soils.csv,$(SOIL_CLASSES))

demo: deps
	@$(MAKE) --no-print-directory all
	@if [ -n "$(CONDITION)" ] && $(MAKE) --no-print-directory $(OUT)/route.json && [ ! -f $(OUT)/route.geojson ]; then \
	    $(MAKE) --no-print-directory demo-no-route; \
	else $(MAKE) --no-print-directory $(OUT)/report.md $(OUT)/project.qgs $(OUT)/nav2/map.yaml $(OUT)/web3d/index.json; fi
	@if [ -n "$(FLEET_OUT)" ]; then $(MAKE) --no-print-directory $(FLEET_OUT); fi
	@echo "demo: layers in $(OUT)/: dem.tif dem_std.tif slope.tif soil.tif landuse.tif speed.tif gonogo.tif limit.tif"
	@echo "      cost.tif class.tif roadmap.gpkg route.geojson route.gpx route.csv points.csv points/ept.json sim*/ png/ visit/"
	@echo "      summaries: krige.json terrain.json speed.json cost.json roadmap.json route.json sim*/metrics.json"
	@echo "      (their keys: docs/summaries.md)"
	@echo "      QGIS project: $(OUT)/project.qgs"
	@echo "      the mission report: $(OUT)/report.md and $(OUT)/report.html"
	@echo "      the map for ROS 2 nav2: $(OUT)/nav2/map.yaml, map.pgm, map.prj, waypoints.yaml (docs/nav2.md)"
	@echo "      the terrain for the 3D view: $(OUT)/web3d/ (docs/view3d.md)"
	@if [ -n "$(FLEET_OUT)" ]; then echo "      the fleet mission: $(FLEET)/plan/ (fleet.json, fleet.csv, routes, fleet.ini), plan.png, sim/ (docs/fleet.md)"; fi

# the DEM refined by ordinary kriging onto a $(RES) m grid in metres
$(OUT)/dem_kriged.tif $(OUT)/dem_std.tif $(OUT)/variogram.csv $(OUT)/krige.json &: $(DEM) $(BINDIR)/trv-krige
	@mkdir -p $(OUT)
	$(BINDIR)/trv-krige $(DEM) $(if $(T_SRS),--t_srs $(T_SRS)) --tr $(RES) --seed $(SEED) $(if $(NMAX),--nmax $(NMAX)) \
	    -o $(OUT)/dem_kriged.tif --std $(OUT)/dem_std.tif --variogram $(OUT)/variogram.csv

$(OUT)/dem.tif $(OUT)/slope.tif $(OUT)/soil.tif $(OUT)/landuse.tif $(OUT)/points.csv $(OUT)/points/ept.json \
    $(OUT)/terrain.json &: \
    $(OUT)/dem_kriged.tif $(SOIL) $(LANDUSE) $(BINDIR)/trv-terrain $(SOIL_CLASSES) $(LANDUSE_CLASSES)
	$(BINDIR)/trv-terrain --dem $(OUT)/dem_kriged.tif --soil $(SOIL) --landuse $(LANDUSE) \
	    --soil-classes $(SOIL_CLASSES) --landuse-classes $(LANDUSE_CLASSES) \
	    --points $(OUT)/points.csv --ept $(OUT)/points -o $(OUT)

# attainable speed and GO/NOGO for the vehicle
$(OUT)/speed.tif $(OUT)/gonogo.tif $(OUT)/limit.tif $(OUT)/speed_report.csv $(OUT)/speed.json \
    $(OUT)/speed_vehicle.ini $(OUT)/speed_soils.csv $(OUT)/speed_landuse.csv &: \
    $(OUT)/slope.tif $(OUT)/soil.tif $(OUT)/landuse.tif $(VEHICLE) $(BINDIR)/trv-speed $(SOIL_CLASSES) $(LANDUSE_CLASSES)
	$(BINDIR)/trv-speed --terrain $(OUT) --vehicle $(VEHICLE) --soils $(SOIL_CLASSES) \
	    --landuse-classes $(LANDUSE_CLASSES) --report $(OUT)/speed_report.csv $(if $(CONDITION),--condition $(CONDITION))

# fuzzy mobility cost and class
$(OUT)/cost.tif $(OUT)/class.tif $(OUT)/cost.json &: $(OUT)/speed.tif $(OUT)/gonogo.tif $(OUT)/dem.tif \
    $(OUT)/slope.tif $(OUT)/soil.tif $(RULES) $(SOIL_CLASSES) $(BINDIR)/trv-cost
	$(BINDIR)/trv-cost --terrain $(OUT) --rules $(RULES) --soils $(COST_SOILS)

# the roadmap over the GO area, and the mission on it
$(OUT)/roadmap.gpkg $(OUT)/roadmap.json &: $(OUT)/class.tif $(OUT)/cost.tif $(OUT)/gonogo.tif $(BINDIR)/trv-roadmap
	$(BINDIR)/trv-roadmap --terrain $(OUT) -o $(OUT)/roadmap.gpkg --seed $(SEED)

# (and the route explained: every route's profile and time shares, the recommended one's picture)
$(OUT)/route.geojson $(OUT)/route.gpx $(OUT)/route.csv $(OUT)/route_stats.csv $(OUT)/route.json \
    $(OUT)/route_profile.csv $(OUT)/route_time_shares.csv $(OUT)/png/profile.png &: \
    $(OUT)/roadmap.gpkg $(BINDIR)/trv-route
	@mkdir -p $(OUT)/png
	$(BINDIR)/trv-route --roadmap $(OUT)/roadmap.gpkg --terrain $(OUT) --from $(FROM) --to $(TO) --compare --grid --no-timing \
	    $(if $(CONDITION),--allow-no-route) -o $(OUT)/route.geojson --gpx $(OUT)/route.gpx --csv $(OUT)/route.csv --stats $(OUT)/route_stats.csv \
	    --profile $(OUT)/route_profile.csv --time-shares $(OUT)/route_time_shares.csv --profile-png $(OUT)/png/profile.png

# the MMCR route and three alternatives (docs/method.md §4.11) in their own
# directory (route.json beside them); the demo's valleys leave no route that
# shares less with the best, nor one free of every detour of a quarter of it
ALT := $(OUT)/alternatives
ALT_FILES := $(ALT)/route_alternatives.geojson $(ALT)/route_alternatives.gpx $(ALT)/route_alternatives.csv \
    $(ALT)/route_alternatives_stats.csv $(ALT)/route.json
$(ALT_FILES) &: $(OUT)/roadmap.gpkg $(BINDIR)/trv-route
	@mkdir -p $(ALT)
	$(BINDIR)/trv-route --roadmap $(OUT)/roadmap.gpkg --terrain $(OUT) --from $(FROM) --to $(TO) --no-timing \
	    --alternatives 4 --max-overlap 0.85 --local-opt 0.03 -o $(ALT)/route_alternatives.geojson \
	    --gpx $(ALT)/route_alternatives.gpx --csv $(ALT)/route_alternatives.csv --stats $(ALT)/route_alternatives_stats.csv

# the multi-stop mission in visit/ (its own route.json beside its GeoJSON)
VISIT_OUT := $(if $(VISIT),$(OUT)/visit/route.json)
$(OUT)/visit/route_visit.geojson $(OUT)/visit/route_visit.gpx $(OUT)/visit/route_visit.csv \
    $(OUT)/visit/route_visit_stats.csv $(OUT)/visit/route.json &: $(OUT)/roadmap.gpkg $(BINDIR)/trv-route
	@mkdir -p $(OUT)/visit
	$(BINDIR)/trv-route -q --roadmap $(OUT)/roadmap.gpkg --terrain $(OUT) --from $(FROM) --visit '$(VISIT)' --return \
	    --no-timing -o $(OUT)/visit/route_visit.geojson --gpx $(OUT)/visit/route_visit.gpx \
	    --csv $(OUT)/visit/route_visit.csv --stats $(OUT)/visit/route_visit_stats.csv

# the simulator drives the MMCR route (data/scenarios/demo.ini), and again
# with obstacles that appear on it (BLOCKED: placed along the route, so on
# any area; empty skips it)
SCENARIO ?= data/scenarios/demo.ini
BLOCKED ?= data/scenarios/blocked.ini
SIM_DEPS := $(OUT)/route.csv $(OUT)/speed.tif $(OUT)/soil.tif $(VEHICLE) $(SOIL_CLASSES) $(LANDUSE_CLASSES) $(BINDIR)/trv-sim
# trv-sim's own defaults are the bundled tables: name a table only when it is another
SIM_TABLES := $(if $(CONDITION),,$(if $(filter-out data/classes/soils.csv,$(SOIL_CLASSES)),--soils $(SOIL_CLASSES))) \
    $(if $(filter-out data/classes/landuse.csv,$(LANDUSE_CLASSES)),--landuse-classes $(LANDUSE_CLASSES))
$(OUT)/sim/metrics.json &: $(SCENARIO) $(SIM_DEPS)
	$(BINDIR)/trv-sim --terrain $(OUT) --scenario $(SCENARIO) --route $(OUT)/route.csv --seed $(SEED) --no-timing $(strip $(SIM_TABLES)) -o $(OUT)/sim

$(OUT)/sim_blocked/metrics.json &: $(BLOCKED) $(SIM_DEPS)
	$(BINDIR)/trv-sim --terrain $(OUT) --scenario $(BLOCKED) --route $(OUT)/route.csv --seed $(SEED) --no-timing $(strip $(SIM_TABLES)) -o $(OUT)/sim_blocked

# make console: the blocked scenario (the demo's route, its LiDAR and the
# obstacles that appear) driven live in the operator's console
# (docs/console.md); trv-sim prints the URL; End run writes $(OUT)/sim_console
CONSOLE ?= 127.0.0.1:8023
CONSOLE_SCENARIO ?= $(if $(BLOCKED),$(BLOCKED),$(SCENARIO))
console: deps
	@$(MAKE) --no-print-directory all
	@[ -f $(OUT)/route.csv ] && [ -f $(OUT)/speed.tif ] || $(MAKE) --no-print-directory demo
	@echo "console: open the URL below in a browser; End run there, or Ctrl-C here, stops it"
	@$(BINDIR)/trv-sim -q --terrain $(OUT) --scenario $(CONSOLE_SCENARIO) --route $(OUT)/route.csv --seed $(SEED) \
	    $(strip $(SIM_TABLES)) -o $(OUT)/sim_console --console $(CONSOLE)

# the same route driven by the dynamic model (docs/method.md 5.11; empty DYNAMIC skips it)
DYNAMIC ?= data/scenarios/demo_dynamic.ini
$(OUT)/sim_dynamic/metrics.json &: $(DYNAMIC) $(SIM_DEPS)
	$(BINDIR)/trv-sim -q --terrain $(OUT) --scenario $(DYNAMIC) --route $(OUT)/route.csv --seed $(SEED) --no-timing $(strip $(SIM_TABLES)) -o $(OUT)/sim_dynamic

# the fleet mission (docs/fleet.md): the three bundled vehicles on the demo's
# terrain, each type's speed, cost and roadmap in fleet/<type>/ (the terrain's
# layers copied), the tasks of data/jacksboro/tasks.csv (Jacksboro's bundled
# DEM only); the plan in fleet/plan/ (with fleet.ini, the trv-sim scenario),
# its map fleet/plan.png (each vehicle its colour) and its simulation in
# fleet/sim/ (each vehicle on its own type's terrain); the report's fleet
# table reads them.
FLEET_TASKS ?= $(if $(filter data/jacksboro/dem_3arcsec.tif,$(DEM)),data/jacksboro/tasks.csv)
FLEET := $(OUT)/fleet
FLEET_TYPES := ugv_hua2022 truck_6x6 tracked_carrier
FLEET_OUT := $(if $(FLEET_TASKS),$(FLEET)/plan.png $(FLEET)/sim/metrics.json)
$(FLEET)/%/roadmap.gpkg: $(OUT)/dem.tif $(OUT)/slope.tif $(OUT)/soil.tif $(OUT)/landuse.tif data/vehicles/%.ini \
    $(BINDIR)/trv-speed $(BINDIR)/trv-cost $(BINDIR)/trv-roadmap
	@mkdir -p $(FLEET)/$*
	cp $(foreach l,dem slope soil landuse,$(OUT)/$(l).tif) $(wildcard $(OUT)/soil.tif.aux.xml $(OUT)/landuse.tif.aux.xml) $(FLEET)/$*/
	$(BINDIR)/trv-speed -q --terrain $(FLEET)/$* --vehicle data/vehicles/$*.ini --soils $(SOIL_CLASSES) \
	    --landuse-classes $(LANDUSE_CLASSES) $(if $(CONDITION),--condition $(CONDITION))
	$(BINDIR)/trv-cost -q --terrain $(FLEET)/$* --rules $(RULES) --soils $(COST_SOILS)
	$(BINDIR)/trv-roadmap -q --terrain $(FLEET)/$* -o $@ --seed $(SEED)

# the fleet: the UGV from FROM, the truck from TO, the carrier from a
# valley in between; the UGV and the carrier take three tasks at most; the
# vehicle files relative to the fleet file (no clone's path in the outputs)
$(FLEET)/fleet.ini: Makefile
	@mkdir -p $(FLEET)
	printf '[vehicle.ugv]\nvehicle = %s\nrun = ugv_hua2022\nstart = %s\ncapacity = 3\n\n[vehicle.truck]\nvehicle = %s\nrun = truck_6x6\nstart = %s\n\n[vehicle.carrier]\nvehicle = %s\nrun = tracked_carrier\nstart = -84.22927,36.65209\ncapacity = 3\nmodel = skid\n' \
	    $$(realpath -m --relative-to=$(FLEET) data/vehicles/ugv_hua2022.ini) $(FROM) \
	    $$(realpath -m --relative-to=$(FLEET) data/vehicles/truck_6x6.ini) $(TO) \
	    $$(realpath -m --relative-to=$(FLEET) data/vehicles/tracked_carrier.ini) >$@

$(FLEET)/plan/fleet.json: $(foreach t,$(FLEET_TYPES),$(FLEET)/$(t)/roadmap.gpkg) $(FLEET)/fleet.ini $(FLEET_TASKS) \
    $(BINDIR)/trv-fleet
	$(BINDIR)/trv-fleet -q --fleet $(FLEET)/fleet.ini --tasks $(FLEET_TASKS) --out $(FLEET)/plan --no-timing

$(FLEET)/plan.png: $(FLEET)/plan/fleet.json $(OUT)/class.tif $(OUT)/dem.tif $(BINDIR)/trv-render
	$(BINDIR)/trv-render -q $(OUT)/class.tif --hillshade $(OUT)/dem.tif \
	    $$(for f in $(FLEET)/plan/*.geojson $(FLEET)/plan/*.gpx; do printf -- '--overlay %s ' "$$f"; done) \
	    --route-by-file --legend --title "Fleet plan: each vehicle's route through its tasks" -o $@

$(FLEET)/sim/metrics.json: $(FLEET)/plan/fleet.json $(BINDIR)/trv-sim
	$(BINDIR)/trv-sim -q --terrain $(FLEET)/$(firstword $(FLEET_TYPES)) --scenario $(FLEET)/plan/fleet.ini \
	    --seed $(SEED) --no-timing -o $(FLEET)/sim

# maps: every layer over the hillshade, the routes over the cost with the roadmap
PNG := $(OUT)/png
DEMO_PNGS := $(foreach l,dem slope speed limit gonogo cost class,$(PNG)/$(l).png) $(PNG)/routes.png
$(PNG)/%.png: $(OUT)/%.tif $(OUT)/dem.tif $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	$(BINDIR)/trv-render -q $< --hillshade $(OUT)/dem.tif --legend -o $@

$(PNG)/routes.png: $(OUT)/cost.tif $(OUT)/dem.tif $(OUT)/roadmap.gpkg $(OUT)/route.geojson $(OUT)/route.gpx $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	$(BINDIR)/trv-render -q $(OUT)/cost.tif --hillshade $(OUT)/dem.tif --overlay $(OUT)/roadmap.gpkg \
	    --overlay $(OUT)/route.geojson --overlay $(OUT)/route.gpx --legend --title "Routes over mobility cost" -o $@

# the recommended route alone (the report's first map): MMCR, the method's answer
DEMO_PNGS += $(PNG)/route_mmcr.png
$(PNG)/route_mmcr.png: $(OUT)/cost.tif $(OUT)/dem.tif $(OUT)/route.geojson $(OUT)/route.gpx $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	$(BINDIR)/trv-render -q $(OUT)/cost.tif --hillshade $(OUT)/dem.tif --overlay $(OUT)/route.geojson \
	    --overlay $(OUT)/route.gpx --route mmcr --legend --title "Recommended route: MMCR over mobility cost" -o $@

# the alternatives over the cost (the report's, under Strategies compared)
$(PNG)/route_alternatives.png: $(OUT)/cost.tif $(OUT)/dem.tif $(ALT_FILES) $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	$(BINDIR)/trv-render -q $(OUT)/cost.tif --hillshade $(OUT)/dem.tif --overlay $(ALT)/route_alternatives.geojson \
	    --legend --title "The MMCR route and its alternatives over mobility cost" -o $@

# the simulated trajectories against the plan (and the obstacles of the blocked run)
DEMO_PNGS += $(PNG)/sim.png
SIM_SHOWN := $(if $(BLOCKED),sim_blocked,sim)
SIM_OVERLAYS := $(OUT)/$(SIM_SHOWN)/trajectory_ugv.geojson $(if $(BLOCKED),$(OUT)/sim_blocked/obstacles.geojson)
$(PNG)/sim.png: $(OUT)/class.tif $(OUT)/dem.tif $(OUT)/$(SIM_SHOWN)/metrics.json $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	$(BINDIR)/trv-render -q $(OUT)/class.tif --hillshade $(OUT)/dem.tif $(foreach f,$(SIM_OVERLAYS),--overlay $(f)) \
	    --legend --title "Simulated drive against the plan" -o $@

# with obstacles: a 1 km window around the first re-plan, where the plan,
# the obstacle and the detour driven around it can be told apart
ifneq ($(BLOCKED),)
DEMO_PNGS += $(PNG)/sim_replan.png
$(PNG)/sim_replan.png: $(OUT)/class.tif $(OUT)/dem.tif $(OUT)/sim_blocked/metrics.json $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	@xy=$$(sed -n 's/.*"type": "replan", "x": \([-0-9.]*\), "y": \([-0-9.]*\).*/\1 \2/p' $(OUT)/sim_blocked/events.jsonl | head -1); \
	if [ -z "$$xy" ]; then echo "demo: no re-plan in $(OUT)/sim_blocked/events.jsonl" >&2; exit 1; fi; \
	set -- $$xy; te=$$(awk -v x=$$1 -v y=$$2 'BEGIN { printf "%.1f %.1f %.1f %.1f", x - 500, y - 500, x + 500, y + 500 }'); \
	echo "$(BINDIR)/trv-render $(OUT)/class.tif --te $$te ... -o $@"; \
	$(BINDIR)/trv-render -q $(OUT)/class.tif --hillshade $(OUT)/dem.tif $(foreach f,$(SIM_OVERLAYS),--overlay $(f)) \
	    --te $$te --legend --title "The first re-plan: the obstacle, the plan and the drive" -o $@
endif

# the mission once more with a river across it and one bridge (data/$(AREA)/river.geojson and
# bridge.geojson, drawn for the demo; docs/zones.md): the recommended route and its raster optimum
RIVER := $(wildcard data/$(AREA)/river.geojson)
BRIDGE := $(wildcard data/$(AREA)/bridge.geojson)
ifneq ($(RIVER),)
RIVER_OUT := $(OUT)/river/route_river.geojson
$(OUT)/river/route_river.geojson $(OUT)/river/route_stats.csv $(OUT)/river/route.json &: \
    $(OUT)/roadmap.gpkg $(RIVER) $(BRIDGE) $(BINDIR)/trv-route
	@mkdir -p $(OUT)/river
	$(BINDIR)/trv-route -q --roadmap $(OUT)/roadmap.gpkg --terrain $(OUT) --from $(FROM) --to $(TO) --grid --no-timing \
	    --zones $(RIVER) $(if $(BRIDGE),--crossings $(BRIDGE)) -o $(OUT)/river/route_river.geojson --stats $(OUT)/river/route_stats.csv
DEMO_PNGS += $(PNG)/route_river.png
$(PNG)/route_river.png: $(OUT)/cost.tif $(OUT)/dem.tif $(RIVER_OUT) $(RIVER) $(BRIDGE) $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	$(BINDIR)/trv-render -q $(OUT)/cost.tif --hillshade $(OUT)/dem.tif --overlay $(RIVER_OUT) --overlay $(RIVER) \
	    $(if $(BRIDGE),--overlay $(BRIDGE)) --legend --title "A river and one bridge: the routes with the river" -o $@
endif

# terrain uncertainty (issue 17; docs/method.md §2.12, §4.12): NSIM conditional
# realisations of the kriged DEM (trv-krige --nsim), the speed model over them
# (P(NOGO), speed p10/p50/p90) and the routes evaluated on them (--mc), also
# under --risk RISK, in $(UNC): a run directory whose terrain layers are the
# main run's (linked), so that no layer of $(OUT) changes. On Jacksboro at
# 30 m the goal is ringed by cells of P(NOGO) above 0.1: --risk 0.05 and 0.1
# find no route, 0.2 does
NSIM ?= 20
RISK ?= 0.2
UNC := $(OUT)/uncertainty
UNC_ROUTES := $(UNC)/route_stats.csv $(UNC)/risk/route_stats.csv
$(UNC)/dem_sim.tif: $(DEM) $(BINDIR)/trv-krige
	@mkdir -p $(UNC)
	$(BINDIR)/trv-krige -q $(DEM) $(if $(T_SRS),--t_srs $(T_SRS)) --tr $(RES) --seed $(SEED) $(if $(NMAX),--nmax $(NMAX)) --nsim $(NSIM) \
	    -o $(UNC)/dem_kriged.tif --sim $@
$(UNC)/p_nogo.tif $(UNC)/speed.json &: $(UNC)/dem_sim.tif $(OUT)/cost.tif $(OUT)/class.tif $(VEHICLE) \
    $(BINDIR)/trv-speed $(SOIL_CLASSES) $(LANDUSE_CLASSES)
	@ln -sf ../dem.tif ../slope.tif ../soil.tif ../landuse.tif ../cost.tif ../class.tif $(UNC)/
	$(BINDIR)/trv-speed -q --terrain $(UNC) --vehicle $(VEHICLE) --soils $(SOIL_CLASSES) \
	    --landuse-classes $(LANDUSE_CLASSES) $(if $(CONDITION),--condition $(CONDITION)) --realizations $(UNC)/dem_sim.tif
$(UNC)/route_stats.csv $(UNC)/route.geojson &: $(UNC)/p_nogo.tif $(OUT)/roadmap.gpkg $(BINDIR)/trv-route
	$(BINDIR)/trv-route -q --roadmap $(OUT)/roadmap.gpkg --terrain $(UNC) --from $(FROM) --to $(TO) --compare --no-timing \
	    --mc $(NSIM) -o $(UNC)/route.geojson --stats $(UNC)/route_stats.csv
# (an area or resolution where no route keeps to --risk: a note, and the
# report and the map without those routes)
$(UNC)/risk/route_stats.csv: $(UNC)/p_nogo.tif $(OUT)/roadmap.gpkg $(BINDIR)/trv-route
	@mkdir -p $(UNC)/risk
	$(BINDIR)/trv-route -q --roadmap $(OUT)/roadmap.gpkg --terrain $(UNC) --from $(FROM) --to $(TO) --compare --no-timing \
	    --risk $(RISK) --mc $(NSIM) -o $(UNC)/risk/route_risk.geojson --stats $@ || \
	    { echo "demo: no route keeps to --risk $(RISK) here" >&2; rm -f $(UNC)/risk/route_risk.geojson; \
	      echo "no route keeps to --risk $(RISK)" > $@; }
DEMO_PNGS += $(PNG)/p_nogo.png
$(PNG)/p_nogo.png: $(UNC)/p_nogo.tif $(OUT)/dem.tif $(UNC_ROUTES) $(BINDIR)/trv-render
	@mkdir -p $(PNG)
	$(BINDIR)/trv-render -q $(UNC)/p_nogo.tif --hillshade $(OUT)/dem.tif --overlay $(UNC)/route.geojson --route mmcr \
	    $$([ -f $(UNC)/risk/route_risk.geojson ] && echo --overlay $(UNC)/risk/route_risk.geojson) --legend \
	    --title "P(NOGO) over $(NSIM) terrain realisations; MMCR without and with --risk $(RISK)" -o $@

# the QGIS project (every layer, styled, in order) and the mission report
SIM_RUNS := $(OUT)/sim/metrics.json $(if $(BLOCKED),$(OUT)/sim_blocked/metrics.json) \
    $(if $(DYNAMIC),$(OUT)/sim_dynamic/metrics.json)
$(OUT)/project.qgs: $(OUT)/route.geojson $(OUT)/class.tif $(SIM_RUNS) $(DEMO_PNGS) $(BINDIR)/trv-project
	$(BINDIR)/trv-project -q $(OUT) -o $@ --title "traverse: $(AREA)"

# the report's dry/normal/wet table (the normal run with the bundled soils
# only): trv-speed in each condition on the same layers (linked) in
# conditions/<c>/; the report reads their speed.json and speed.tif
COND_JSONS := $(if $(CONDITION)$(filter-out data/classes/soils.csv,$(SOIL_CLASSES)),,\
    $(foreach c,dry normal wet,$(OUT)/conditions/$(c)/speed.json))
$(OUT)/conditions/%/speed.json: $(OUT)/slope.tif $(OUT)/soil.tif $(OUT)/landuse.tif $(VEHICLE) $(BINDIR)/trv-speed \
    $(SOIL_CLASSES) $(LANDUSE_CLASSES) data/classes/soils_moisture.csv
	@mkdir -p $(@D)
	@ln -sf ../../slope.tif ../../soil.tif ../../landuse.tif $(@D)/
	$(BINDIR)/trv-speed -q --terrain $(@D) --vehicle $(VEHICLE) --soils $(SOIL_CLASSES) \
	    --landuse-classes $(LANDUSE_CLASSES) --condition $*

# the report reads the stages' summaries (<stage>.json, docs/summaries.md)
$(OUT)/report.md $(OUT)/report.html &: $(OUT)/route_stats.csv $(OUT)/class.tif $(OUT)/gonogo.tif $(OUT)/krige.json \
    $(OUT)/speed.json $(OUT)/cost.json $(OUT)/roadmap.json $(OUT)/route.json $(SIM_RUNS) $(DEMO_PNGS) $(COND_JSONS) \
    $(ALT_FILES) $(PNG)/route_alternatives.png $(RIVER_OUT) $(VISIT_OUT) $(FLEET_OUT) $(BINDIR)/trv-report
	$(BINDIR)/trv-report -q $(OUT) -o $(OUT)/report.md --html $(OUT)/report.html

# a condition's run may have no route (CONDITION=wet: the goal is NOGO by
# traction): trv-route --allow-no-route then writes route.json alone with
# "status": "no route" and why, and the demo ends with the layers' maps, the
# report that says so, the QGIS project and the nav2 map, without a route
.PHONY: demo-no-route
demo-no-route: $(OUT)/route.json $(foreach l,dem slope speed limit gonogo cost class,$(PNG)/$(l).png) $(OUT)/krige.json \
    $(OUT)/speed.json $(OUT)/cost.json $(OUT)/roadmap.json
	$(BINDIR)/trv-report -q $(OUT) -o $(OUT)/report.md --html $(OUT)/report.html
	$(BINDIR)/trv-project -q $(OUT) -o $(OUT)/project.qgs --title "traverse: $(AREA)"
	$(BINDIR)/trv-export -q --nav2 $(OUT)/nav2 --terrain $(OUT)
	$(BINDIR)/trv-export -q --web3d --terrain $(OUT)

# the map for ROS 2 nav2 (map_server's PGM + YAML) and the MMCR route's waypoints in its frame
$(OUT)/nav2/map.yaml $(OUT)/nav2/map.pgm $(OUT)/nav2/waypoints.yaml &: $(OUT)/cost.tif $(OUT)/gonogo.tif $(OUT)/route.geojson \
    $(BINDIR)/trv-export
	$(BINDIR)/trv-export -q --nav2 $(OUT)/nav2 --terrain $(OUT) --route $(OUT)/route.geojson

# the terrain for the 3D view (web/view3d.html): height tiles by level of detail and the layers as textures
$(OUT)/web3d/index.json: $(OUT)/dem.tif $(OUT)/speed.tif $(OUT)/cost.tif $(OUT)/gonogo.tif $(BINDIR)/trv-export
	$(BINDIR)/trv-export -q --web3d --terrain $(OUT)

# a real QGIS (Debian python3-qgis, headless) opens the demo's project and draws it
QGIS_PKGS := python3-qgis
check-qgis: deps
	@sh tools/deps.sh $(QGIS_PKGS)
	@$(MAKE) --no-print-directory all
	@$(TEST_ENV) TRV_TEST_PKGS="$(TEST_PKGS) $(QGIS_PKGS)" QT_QPA_PLATFORM=offscreen sh tests/tool_qgis.sh

# ---- the QGIS Processing provider (qgis/traverse) -----------------------
# make install-qgis [QGIS_PROFILE_DIR=...]: the plugin into a QGIS profile's
# python/plugins/traverse (an older copy replaced); tests/tool_qgis_provider.sh
# tests it, in `make test` and `make check-qgis-provider`.
QGIS_PROFILE_DIR ?= $(HOME)/.local/share/QGIS/QGIS3/profiles/default
QGIS_PLUGIN_DIR := $(QGIS_PROFILE_DIR)/python/plugins/traverse
.PHONY: install-qgis check-qgis-provider
install-qgis:
	rm -rf "$(QGIS_PLUGIN_DIR)"
	cd qgis/traverse && find . -name __pycache__ -prune -o -type f -print | \
	    while read -r f; do install -D -m 644 "$$f" "$(QGIS_PLUGIN_DIR)/$$f" || exit 1; done
	@echo "install-qgis: the traverse plugin is in $(QGIS_PLUGIN_DIR); enable it in QGIS (Plugins > Manage and Install Plugins)"

check-qgis-provider: deps
	@sh tools/deps.sh $(QGIS_PKGS)
	@$(MAKE) --no-print-directory all
	@$(TEST_ENV) TRV_TEST_PKGS="$(TEST_PKGS) $(QGIS_PKGS)" sh tests/tool_qgis_provider.sh

# docs/trv-*.md from each tool's --help and the prose of docs/src/trv-*.md
docs: all
	@sh tools/mkdocs.sh $(BINDIR) docs

bench: deps
	@sh tools/deps.sh $(BENCH_PKGS)
	@$(MAKE) --no-print-directory all
	@TRV_BIN=$(BINDIR) sh bench/run.sh
	@TRV_BIN=$(BINDIR) sh bench/krige.sh
	@TRV_BIN=$(BINDIR) sh bench/krige_sim.sh
	@TRV_BIN=$(BINDIR) sh bench/speed.sh
	@TRV_BIN=$(BINDIR) sh bench/cost.sh
	@TRV_BIN=$(BINDIR) sh bench/route.sh
	@TRV_BIN=$(BINDIR) sh bench/fleet.sh
	@[ -f $(OUT)/route.csv ] || { echo "bench: the simulator part drives the demo's route: make demo first"; \
	    $(MAKE) --no-print-directory demo; }
	@TRV_BIN=$(BINDIR) TRV_OUT=$(OUT) sh bench/sim.sh
	@TRV_BIN=$(BINDIR) TRV_OUT=$(OUT) sh bench/sim_dynamic.sh
	@TRV_BIN=$(BINDIR) TRV_EXAMPLES=$(BUILD)/examples TRV_OUT=$(OUT) sh bench/sim_server.sh
	@TRV_BIN=$(BINDIR) TRV_OUT=$(OUT) sh bench/local_planners.sh

# the streamed raster stages (trv-terrain, trv-speed, trv-cost) at 30, 10
# and 5 m (SCALE_RES="30 10"): CPU time, wall time, peak RSS and their
# growth exponents (bench/scale.sh, docs/scale.md)
.PHONY: bench-scale
bench-scale: all
	@TRV_BIN=$(BINDIR) sh bench/scale.sh

# make install: tools, library, headers, the data the tools' defaults and
# the demo read (share/traverse, where an installed tool finds it: see
# trv_data_path) and man pages made from --help (naming the data directory
# under PREFIX); tools/install.sh records what it wrote in
# share/traverse/install-manifest.txt for make uninstall
MAN_DIR := $(BUILD)/man
DATA_FILES := data/README.md $(wildcard data/*/*)
# the console's pages (trv-sim --console finds them in share/traverse/web)
WEB_FILES := $(wildcard web/*.html web/*/*.js web/*/*.css)
INSTALL_LIST = $(foreach f,$(TOOLS),755 $(f) bin/$(notdir $(f))) 644 $(LIB) lib/$(notdir $(LIB)) \
    $(foreach h,$(PUBLIC_HEADERS),644 $(h) include/traverse/$(h:src/%=%)) \
    $(foreach f,$(DATA_FILES),644 $(f) share/traverse/$(f:data/%=%)) \
    $(foreach f,$(WEB_FILES),644 $(f) share/traverse/$(f)) \
    $(foreach t,$(TOOLS),644 $(MAN_DIR)/$(notdir $(t)).1 share/man/man1/$(notdir $(t)).1)

man: all
	@sh tools/mkman.sh $(BINDIR) $(MAN_DIR) $(PREFIX)/share/traverse

install: man
	@printf '%s %s %s\n' $(INSTALL_LIST) | sh tools/install.sh install "$(DESTDIR)$(PREFIX)"

uninstall:
	@sh tools/install.sh uninstall "$(DESTDIR)$(PREFIX)"

clean:
	rm -rf build bin lib out

.SECONDARY:
