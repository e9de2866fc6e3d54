# Cross build for 64-bit Arm Linux with Debian's cross toolchain
# (g++-aarch64-linux-gnu) against the :arm64 multiarch -dev packages, tests
# run under qemu-user: the `aarch64` preset; scripts/setup.sh --aarch64
# installs what it needs.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(RELITE_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${RELITE_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${RELITE_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${RELITE_CROSS_TRIPLE})

# Libraries, headers and CMake packages come from the cross C library
# (/usr/aarch64-linux-gnu) and the multiarch tree (/usr/lib/aarch64-linux-gnu,
# arch-independent headers in /usr/include); programs (flatc) are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/${RELITE_CROSS_TRIPLE} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Keep the host's x86-64 packages out of find_package/find_library: only the
# arm64 multiarch directory (and the arch-independent share/) is searched.
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/cmake)

# pkg-config (examples/, relite.pc users) sees only the arm64 .pc files.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${RELITE_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# CTest runs the test executables through qemu-user; the CPU model comes
# from QEMU_CPU in the environment (scripts/test.sh aarch64 runs max and a
# plain Armv8.0 core). They run on the arm64 multiarch runtime
# (libc6:arm64, libstdc++6:arm64: /lib/ld-linux-aarch64.so.1 and
# /usr/lib/aarch64-linux-gnu), at its own paths: `-L /`. Not
# `-L /usr/aarch64-linux-gnu`: that sysroot's ld.so (libc6-arm64-cross,
# 2.36-8cross1) then loads the multiarch libc.so.6 (2.36-9+deb12uN, which
# the :arm64 -dev packages pull in) from /lib/aarch64-linux-gnu, and the
# two disagree on ld.so's private data: the first pthread_create spins
# forever walking its stack cache.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)
