/* chill() takes the number of nanoseconds to spin */
BEGIN { chill(); }
