# mmtunedConfig.cmake - find_package(mmtuned) gives the imported target mmtuned::mmtuned
# (libmmtuned.so with include/mmtuned.h); installed by `cmake --install`.
include(${CMAKE_CURRENT_LIST_DIR}/mmtunedTargets.cmake)
