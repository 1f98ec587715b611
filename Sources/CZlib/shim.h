#ifndef SWITCHBOARD_CZLIB_SHIM_H
#define SWITCHBOARD_CZLIB_SHIM_H
#include <zlib.h>
/* deflateInit2/inflateInit2 are macros; Swift cannot import them. */
static inline int sb_deflateInit2(z_streamp strm, int level, int windowBits, int memLevel) {
  return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}
static inline int sb_inflateInit2(z_streamp strm, int windowBits) {
  return inflateInit2(strm, windowBits);
}
#endif
