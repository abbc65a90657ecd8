# gpu-build.sh - sourced by the GPU scripts (scripts/test-gpu.sh, bench/gpu_run.sh): on a
# machine where nothing can be installed from a registry, unpack the Debian packages carried
# in .debs/ (git ignores it; fill it with `(mkdir -p .debs && cd .debs && apt-get download
# libsqlite3-dev libsqlite3-0 libyaml-dev libyaml-0-2 libssl-dev libssl3 libcsv-dev libcsv3)`)
# where the SQLite, libyaml, OpenSSL or libcsv headers are missing, then build into $BUILD
# (default build-gpu), the logs into $OUT.
BUILD=${BUILD:-build-gpu}
if [ -d .debs ] && ! { [ -f /usr/include/yaml.h ] && [ -f /usr/include/sqlite3.h ] &&
                       [ -f /usr/include/openssl/sha.h ] && [ -f /usr/include/csv.h ]; }; then
  mkdir -p /tmp/deps && for f in .debs/*.deb; do dpkg -x "$f" /tmp/deps; done
  export CMAKE_PREFIX_PATH=/tmp/deps/usr PATH=/tmp/deps/usr/bin:$PATH
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  echo "using carried packages from .debs"
fi
gpu_build_t0=$(date +%s)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" >"$OUT/build.log" 2>&1 || { grep -m20 -B2 -A5 error "$OUT/build.log"; exit 1; }
echo "built $BUILD in $(( $(date +%s) - gpu_build_t0 )) s"
