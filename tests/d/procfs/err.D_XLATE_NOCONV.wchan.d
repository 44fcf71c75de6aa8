/* Linux shows no wait channel address: procfs.d leaves pr_wchan out */
BEGIN { trace(curlwpsinfo->pr_wchan); }
