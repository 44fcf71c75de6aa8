struct in { int a; };
translator int < struct in *P > { x = 1; };
