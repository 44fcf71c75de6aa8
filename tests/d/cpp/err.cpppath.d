/* @@args: -C -x cpppath=/nonexistent/cpp */
/* a preprocessor that cannot be found fails the compile */
BEGIN { exit(0); }
