"""Rich output only. Takes core objects and engine events; never imports wire, providers or transport."""
