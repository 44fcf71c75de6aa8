/* stop( ) takes nothing */
BEGIN { stop(1); }
