#!/bin/sh
# Generates testdata/kernels/extra/fingerprint64.json: FarmHash Fingerprint64
# values computed by Google's own C++ FarmHash (github.com/google/farmhash
# src/farmhash.cc, the library TensorFlow links for tsl::Fingerprint64),
# compiled here with g++.
#
#   FARMHASH_SRC=/path/to/farmhash/src tools/goldens/fingerprint64_goldens.sh \
#     > testdata/kernels/extra/fingerprint64.json
#
# Inputs: every length 0..200 of a deterministic byte pattern (covering all
# branches of farmhashna::Hash64: 0, 1-3, 4-7, 8-16, 17-32, 33-64 and the
# 64-byte loop, including exact multiples of 64) plus TensorFlow's own test
# strings. Note: the npm package farmhash-modern@1.1.0 (a Rust port) gives
# different values for lengths 128 and 192; the C++ original is the
# reference.
set -eu
: "${FARMHASH_SRC:?set FARMHASH_SRC to google/farmhash's src directory}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/main.cc" <<'CC'
#include "farmhash.h"
#include <cstdio>
#include <cstring>
#include <vector>
static void emit(const char* s, size_t n, bool comma) {
  printf("%s{\"hex\":\"", comma ? "," : "");
  for (size_t i = 0; i < n; i++) printf("%02x", (unsigned char)s[i]);
  printf("\",\"fp\":\"%llu\"}", (unsigned long long)util::Fingerprint64(s, n));
}
int main() {
  printf("{\"generator\":\"tools/goldens/fingerprint64_goldens.sh\",\"implementation\":\"google/farmhash C++\",\"cases\":[");
  for (int n = 0; n <= 200; n++) {
    std::vector<char> b(n + 1);
    for (int i = 0; i < n; i++) b[i] = (char)((i * 131 + n * 7 + 3) & 0xff);
    emit(b.data(), n, n > 0);
  }
  const char* tf[] = {"a", "b", "c", "d", "Hello", "World",
                      "The quick brown fox jumps over the lazy dog"};
  for (const char* s : tf) emit(s, strlen(s), true);
  printf("]}\n");
}
CC
g++ -O2 -DNDEBUG -I"$FARMHASH_SRC" -o "$tmp/fp" "$tmp/main.cc" "$FARMHASH_SRC/farmhash.cc"
"$tmp/fp"
