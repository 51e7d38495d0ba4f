"""The statistics' models compiled at install (fade.statistics.ahead): an
extension module per composition, named by
fade.statistics.compose.compiled_name. Nothing here is in the repository;
an install or `pip install -e` builds them."""
