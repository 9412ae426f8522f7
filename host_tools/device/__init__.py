"""host_tools/device."""
