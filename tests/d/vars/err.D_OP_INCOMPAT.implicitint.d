/* a storage class without a type declares an int */
self x;
BEGIN { self->x = "text"; }
