struct t;
struct s { struct t inner; };
