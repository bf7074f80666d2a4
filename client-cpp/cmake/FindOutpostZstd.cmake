# Finds libzstd (Debian: libzstd-dev) for the codec-2 (zstd) answer bodies of docs/wire-format.md and defines the
# imported target outpost::zstd. pkg-config's libzstd.pc is asked first for where to look (it is what the .pc file
# of outpost-client names in Requires.private); find_path/find_library then locate zstd.h and the library, so a
# libzstd without a .pc file (or a machine without pkg-config) works too. libzstd's own CMake package is not used:
# not every distribution ships it and its target names changed between releases.
# Installed next to outpost-clientConfig.cmake, which calls find_dependency(OutpostZstd).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_OUTPOST_ZSTD QUIET libzstd)
endif()
find_path(OUTPOST_ZSTD_INCLUDE_DIR zstd.h HINTS ${PC_OUTPOST_ZSTD_INCLUDEDIR} ${PC_OUTPOST_ZSTD_INCLUDE_DIRS})
find_library(OUTPOST_ZSTD_LIBRARY NAMES zstd libzstd HINTS ${PC_OUTPOST_ZSTD_LIBDIR} ${PC_OUTPOST_ZSTD_LIBRARY_DIRS})
set(OUTPOST_ZSTD_VERSION "")
if(OUTPOST_ZSTD_INCLUDE_DIR AND EXISTS "${OUTPOST_ZSTD_INCLUDE_DIR}/zstd.h")
  file(STRINGS "${OUTPOST_ZSTD_INCLUDE_DIR}/zstd.h" _outpost_zstd_v REGEX "^#define ZSTD_VERSION_(MAJOR|MINOR|RELEASE) +[0-9]+")
  foreach(part MAJOR MINOR RELEASE)
    string(REGEX REPLACE ".*ZSTD_VERSION_${part} +([0-9]+).*" "\\1" _outpost_zstd_${part} "${_outpost_zstd_v}")
  endforeach()
  set(OUTPOST_ZSTD_VERSION "${_outpost_zstd_MAJOR}.${_outpost_zstd_MINOR}.${_outpost_zstd_RELEASE}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OutpostZstd
  REQUIRED_VARS OUTPOST_ZSTD_LIBRARY OUTPOST_ZSTD_INCLUDE_DIR
  VERSION_VAR OUTPOST_ZSTD_VERSION)
mark_as_advanced(OUTPOST_ZSTD_INCLUDE_DIR OUTPOST_ZSTD_LIBRARY)
if(OutpostZstd_FOUND AND NOT TARGET outpost::zstd)
  add_library(outpost::zstd UNKNOWN IMPORTED)
  set_target_properties(outpost::zstd PROPERTIES
    IMPORTED_LOCATION "${OUTPOST_ZSTD_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OUTPOST_ZSTD_INCLUDE_DIR}")
endif()
