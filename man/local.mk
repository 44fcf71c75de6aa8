# man/: manual pages, checked by mandoc -Tlint in make check.
dist_man_MANS += man/dtrace.1 man/d.7 man/dtraced.8
