#!/bin/sh
# Generates testdata/kernels/extra/asstring.json: the strings C's printf
# (glibc, compiled here with gcc) gives for the formats TensorFlow's
# AsStringOp builds (core/kernels/as_string_op.cc: "%" + fill + width +
# "." + precision + d/u/f/e/g, with float widened to double).
#
#   tools/goldens/asstring_goldens.sh > testdata/kernels/extra/asstring.json
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/main.c" <<'CC'
#include <math.h>
#include <stdio.h>
#include <string.h>
static int first = 1;
static void num(double v) {
  if (isnan(v)) printf("\"%sNaN\"", signbit(v) ? "-" : "");
  else if (isinf(v)) printf("\"%sInfinity\"", v < 0 ? "-" : "");
  else printf("%.17g", v);
}
static void str(const char* s) {
  putchar('"');
  for (; *s; s++) { if (*s == '"' || *s == '\\') putchar('\\'); putchar(*s); }
  putchar('"');
}
static void fmt(char* f, const char* fill, int width, int prec, const char* conv) {
  strcpy(f, "%"); strcat(f, fill);
  if (width > -1) sprintf(f + strlen(f), "%d", width);
  if (prec > -1) sprintf(f + strlen(f), ".%d", prec);
  strcat(f, conv);
}
static void head(const char* dt, const char* fill, int width, int prec, int sci, int shortest) {
  printf("%s{\"dtype\":\"%s\",\"fill\":", first ? "" : ",", dt);
  first = 0;
  str(fill);
  printf(",\"width\":%d,\"precision\":%d,\"scientific\":%s,\"shortest\":%s", width, prec,
         sci ? "true" : "false", shortest ? "true" : "false");
}
int main(void) {
  static const double dv[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.1, 0.125, 123456789.0, 1e-5, 1.5e-5,
                              1e20, 3.14159265358979, 999999.5, 0.000123456, 100000.0, 1e6, 1234567.0,
                              NAN, -NAN, INFINITY, -INFINITY, 4.9406564584124654e-324};
  static const long long iv[] = {0, 1, -1, 42, -42, 2147483647, -2147483647 - 1, 9007199254740993LL,
                                 -9223372036854775807LL - 1};
  const char* fills[] = {"", " ", "+", "-", "0", "#"};
  const int widths[] = {-1, 0, 12};
  const int precs[] = {-1, 0, 3, 9};
  const char* dts[] = {"DT_FLOAT", "DT_DOUBLE"};
  char f[64], buf[512];
  int n = sizeof dv / sizeof dv[0];
  printf("{\"generator\":\"tools/goldens/asstring_goldens.sh\",\"cases\":[");
  for (int d = 0; d < 2; d++)
    for (int fi = 0; fi < 6; fi++)
      for (int wi = 0; wi < 3; wi++)
        for (int pi = 0; pi < 4; pi++)
          for (int mode = 0; mode < 3; mode++) {
            const char* conv = mode == 0 ? "f" : mode == 1 ? "e" : "g";
            fmt(f, fills[fi], widths[wi], precs[pi], conv);
            head(dts[d], fills[fi], widths[wi], precs[pi], mode == 1, mode == 2);
            printf(",\"values\":[");
            for (int i = 0; i < n; i++) {
              double v = d == 0 ? (double)(float)dv[i] : dv[i];
              if (i) putchar(',');
              num(v);
            }
            printf("],\"want\":[");
            for (int i = 0; i < n; i++) {
              double v = d == 0 ? (double)(float)dv[i] : dv[i];
              snprintf(buf, sizeof buf, f, v);
              if (i) putchar(',');
              str(buf);
            }
            printf("]}");
          }
  const char* idt[] = {"DT_INT32", "DT_INT64", "DT_UINT8"};
  for (int d = 0; d < 3; d++)
    for (int fi = 0; fi < 6; fi++)
      for (int wi = 0; wi < 3; wi++) {
        head(idt[d], fills[fi], widths[wi], -1, 0, 0);
        printf(",\"values\":[");
        int m = 0;
        for (int i = 0; i < 9; i++) {
          long long v = iv[i];
          if (d == 0 && (v > 2147483647LL || v < -2147483647LL - 1)) continue;
          if (d == 2 && (v < 0 || v > 255)) continue;
          printf("%s%lld", m++ ? "," : "", v);
        }
        printf("],\"want\":[");
        m = 0;
        for (int i = 0; i < 9; i++) {
          long long v = iv[i];
          if (d == 0 && (v > 2147483647LL || v < -2147483647LL - 1)) continue;
          if (d == 2 && (v < 0 || v > 255)) continue;
          fmt(f, fills[fi], widths[wi], -1, d == 2 ? "u" : "lld");
          if (d == 2) snprintf(buf, sizeof buf, f, (unsigned)v);
          else snprintf(buf, sizeof buf, f, v);
          if (m++) putchar(',');
          str(buf);
        }
        printf("]}");
      }
  printf("]}\n");
  return 0;
}
CC
gcc -O0 -o "$tmp/gen" "$tmp/main.c"
"$tmp/gen"
