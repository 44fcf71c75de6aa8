/* a string is no pointer to int */
BEGIN { trace(inet_ntoa(probename)); }
