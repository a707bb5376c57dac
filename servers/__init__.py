"""The stateful domain servers and the kernel they share."""
