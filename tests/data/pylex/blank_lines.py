

   
	
# only comments

