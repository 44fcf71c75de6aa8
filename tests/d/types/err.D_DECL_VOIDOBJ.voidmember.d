/* a member of type void: "cannot have void member" */
struct s { int a; void b; };
BEGIN { exit(0); }
