# Included by the interface packages' CMakeLists.txt after
# find_package(rosidl_default_generators), before rosidl_generate_interfaces().
#
# With -DPYTHON_TYPESUPPORTS_ONLY=ON (scripts/setup_env.sh, the PyPI route, where only
# rclpy and the ros2 CLI use these interfaces) the C++ generators are left out: the C++
# headers and the C++ typesupports (rosidl_typesupport_cpp, _fastrtps_cpp,
# _introspection_cpp), which nothing there loads. rclpy loads the C ones
# (rosidl_typesupport_c dispatching to _fastrtps_c or _introspection_c) and the Python
# module. Off by default: a colcon build in a ROS 2 workspace builds every typesupport.
if(PYTHON_TYPESUPPORTS_ONLY)
  set(_kept_extensions)
  foreach(_extension IN LISTS AMENT_EXTENSIONS_rosidl_generate_idl_interfaces)
    if(NOT _extension MATCHES
        "^rosidl_(generator_cpp|typesupport_cpp|typesupport_fastrtps_cpp|typesupport_introspection_cpp):")
      list(APPEND _kept_extensions "${_extension}")
    endif()
  endforeach()
  set(AMENT_EXTENSIONS_rosidl_generate_idl_interfaces ${_kept_extensions})
endif()
