"""What the formats share and no format owns: the registry table (``registry``), the input
(``source``, ``walk``, ``content``, ``remote``, ``json_lines``), ``threadlab.read``
(``reading``), the frames route's builder (``documents``), token counts (``counts``), and the
wire families several formats speak: the provider APIs' containers (``providers/``), Responses-API
items (``responses/``) and OpenTelemetry-style spans (``spans/``).

Nothing here is a format (no registry entry): each format is a folder beside this one."""
