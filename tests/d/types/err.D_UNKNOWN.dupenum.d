/* an enumerator named twice in one enum is refused (not redeclared) */
enum shade { LIGHT, DARK, LIGHT };
BEGIN { exit(0); }
