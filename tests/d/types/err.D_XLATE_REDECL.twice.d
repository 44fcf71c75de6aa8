struct in { int a; };
struct out { int x; };
translator struct out < struct in *P > { x = P->a; };
translator struct out < struct in *Q > { x = Q->a; };
