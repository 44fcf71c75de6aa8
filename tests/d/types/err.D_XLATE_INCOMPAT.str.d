struct in { int a; };
struct out { int x; };
translator struct out < struct in *P > { x = "str"; };
BEGIN { this->p = (struct in *)alloca(4); trace(xlate <struct out *>(this->p)->x); }
