# Injected with -DCMAKE_PROJECT_INCLUDE=<this file> by scripts/setup_env.sh.
#
# Works around a defect of the ROS 2 PyPI wheels: their installed
# share/<pkg>/cmake/export_<pkg>__rosidl_generator_pyExport.cmake files give the
# imported <pkg>__rosidl_generator_py targets include directories of the machine
# the wheels were built on (/opt/python/cp311-cp311/...). CMake refuses to
# generate when an imported target names an include directory that does not
# exist. The real Python/NumPy include directories are added by
# rosidl_generator_py itself, so dropping the missing entries is safe.
#
# The imported targets only appear later, when rosidl_generate_interfaces()
# calls find_package() on the dependencies, so the clean-up is deferred to the
# end of the top-level CMakeLists.txt (i.e. before the generate step).
# Entries containing generator expressions are kept untouched. The result
# depends only on the file system, so the build is deterministic.

# Not cmake_minimum_required(): that would reset the including project's policies.
if(CMAKE_VERSION VERSION_LESS 3.21)  # DEFER needs 3.19, IMPORTED_TARGETS 3.21
  message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE} needs CMake >= 3.21")
endif()

function(_hrdf_collect_dirs dir out_var)
  set(_all "${dir}")
  get_property(_subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(_sub IN LISTS _subdirs)
    _hrdf_collect_dirs("${_sub}" _sub_all)
    list(APPEND _all ${_sub_all})
  endforeach()
  set(${out_var} "${_all}" PARENT_SCOPE)
endfunction()

function(_hrdf_drop_missing_interface_includes)
  _hrdf_collect_dirs("${CMAKE_SOURCE_DIR}" _dirs_to_scan)
  set(_changed 0)
  foreach(_scope IN LISTS _dirs_to_scan)
    get_property(_targets DIRECTORY "${_scope}" PROPERTY IMPORTED_TARGETS)
    foreach(_target IN LISTS _targets)
      get_target_property(_dirs "${_target}" INTERFACE_INCLUDE_DIRECTORIES)
      if(NOT _dirs)
        continue()
      endif()
      set(_kept "")
      set(_dropped "")
      foreach(_dir IN LISTS _dirs)
        if(_dir MATCHES "\\$<" OR NOT IS_ABSOLUTE "${_dir}" OR EXISTS "${_dir}")
          list(APPEND _kept "${_dir}")
        else()
          list(APPEND _dropped "${_dir}")
        endif()
      endforeach()
      if(_dropped)
        set_property(TARGET "${_target}" PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_kept}")
        math(EXPR _changed "${_changed} + 1")
        message(VERBOSE "drop-missing-includes: ${_target}: dropped ${_dropped}")
      endif()
    endforeach()
  endforeach()
  message(STATUS "drop-missing-includes: removed non-existent include dirs from ${_changed} imported target(s)")
endfunction()

# Only once, for the top-level project (CMAKE_PROJECT_INCLUDE runs after every
# project() call, including those of subprojects).
get_property(_hrdf_fix_registered GLOBAL PROPERTY _HRDF_DROP_MISSING_INCLUDES_REGISTERED)
if(NOT _hrdf_fix_registered)
  set_property(GLOBAL PROPERTY _HRDF_DROP_MISSING_INCLUDES_REGISTERED TRUE)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _hrdf_drop_missing_interface_includes)
endif()
