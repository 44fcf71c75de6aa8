struct in { int a; };
struct out { int x; };
translator struct out < struct in *P > { y = P->a; };
