#pragma D option quiet

/*
 * json(text, path): the value at a path of member names and [N] array
 * indexes; a string's contents as written, any other value's text, and
 * NULL where the path leads nowhere or the text is malformed.
 */
BEGIN
{
	cfg = strjoin("{\"srv\": {\"ports\": [80, 443], \"tls\": {\"on\": ",
	    "true}}, \"who\": \"a\\tb\", \"ratio\": 0.25, \"none\": null, " );
	cfg = strjoin(cfg, "\"tags\": [\"x\", [\"y\", \"z\"]]}");
	printf("%s|%s|%s\n", json(cfg, "srv.ports[1]"), json(cfg, "srv.tls.on"),
	    json(cfg, "srv.tls"));
	printf("%s|%s|%s|%s\n", json(cfg, "who"), json(cfg, "ratio"),
	    json(cfg, "none"), json(cfg, "tags[1][0]"));
	printf("%s\n", json(cfg, "tags"));
	printf("%d %d %d %d %d\n", json(cfg, "srv.ports[2]") == NULL,
	    json(cfg, "srv.nope") == NULL, json(cfg, "who.x") == NULL,
	    json("{\"k\": [1 2]}", "k[1]") == NULL,
	    json("{\"k\": \"open}", "k") == NULL);
	exit(0);
}
