/* a global struct is a D variable too: it has no address */
struct pt { int x; };
struct pt g;
BEGIN { p = &g; }
